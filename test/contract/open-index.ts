/** Opening the three ports on one index, and closing them, for the contract's cases. */
import type { EngineIndex, WriterOptions } from './engine.js';
import type { OpenIndex } from './expect-index.js';

/** The chain every case indexes; the cases build their own blocks, so any chain the engine accepts would do. */
export const CHAIN = { chain: 'BTC', network: 'regtest' } as const;

export function writerOptions(undoDepth: number): WriterOptions {
  return { ...CHAIN, undoDepth };
}

/** With `history`, the writer keeps history (from the first block: asked for on an empty index). */
export async function openIndex(index: EngineIndex, undoDepth: number, history = false): Promise<OpenIndex> {
  const writer = await index.openWriter(writerOptions(undoDepth));
  if (history) await writer.setHistory(true);
  return { writer, reader: await index.openReader(), verifier: await index.openVerifier(), history };
}

/** Readers before the writer: the writer's close may fold its log into the file the readers hold. */
export async function closeIndex(ix: Partial<OpenIndex>): Promise<void> {
  await ix.reader?.close();
  await ix.verifier?.close();
  await ix.writer?.close();
}
