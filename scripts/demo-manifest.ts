/**
 * The demo chain's manifest on disk (`<demo dir>/manifest.json`), so that a later `npm run demo` can
 * reuse the node's chain: it names the addresses worth showing and holds the private keys of the
 * taproot addresses that further activity spends from. Written only after the chain is complete, so
 * its absence next to a non-empty chain means an interrupted build.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import type { ChainManifest } from '../harness/regtest-chain.js';

interface StoredManifest extends Omit<ChainManifest, 'taprootKeys'> {
  taprootKeys: Record<string, string>;
}

export async function saveManifest(file: string, manifest: ChainManifest): Promise<void> {
  const stored: StoredManifest = { ...manifest, taprootKeys: Object.fromEntries(manifest.taprootKeys) };
  // Write-then-rename: a Ctrl-C in the middle never leaves half a file behind.
  await writeFile(`${file}.tmp`, `${JSON.stringify(stored, null, 1)}\n`, { mode: 0o600 });
  await rename(`${file}.tmp`, file);
}

/** The saved manifest, or null when there is none (or it is unreadable: the demo then starts over). */
export async function loadManifest(file: string): Promise<ChainManifest | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return null;
  }
  try {
    const stored = JSON.parse(text) as StoredManifest;
    if (!Array.isArray(stored.addresses) || typeof stored.taprootKeys !== 'object' || stored.blocks === undefined) return null;
    return { ...stored, taprootKeys: new Map(Object.entries(stored.taprootKeys)) };
  } catch {
    return null;
  }
}
