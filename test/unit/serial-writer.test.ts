/**
 * indexer/serial-writer.ts: the sync loop and the mempool follower share one writer, and an engine that
 * answers later must not see their calls overlap. Each call starts once the one before it has settled,
 * in the order made, and a failed call does not hold up the next.
 */
import { describe, expect, it } from 'vitest';
import { serialWriter } from '../../indexer/serial-writer.js';
import type { IndexWriter } from '../../src/store/ports.js';

/** A writer whose calls take `ms` each, recording when each starts and ends. */
function slowWriter(ms: number) {
  const events: string[] = [];
  const call =
    <T>(name: string, value: T, fail = false) =>
    async (): Promise<T> => {
      events.push(`start ${name}`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      events.push(`end ${name}`);
      if (fail) throw new Error(`${name} failed`);
      return value;
    };
  const writer = {
    chain: 'BTC',
    network: 'regtest',
    tip: call('tip', null),
    applyBlocks: call('applyBlocks', undefined),
    rollbackTip: call('rollbackTip', null, true),
    mempool: { add: call('add', { added: 1, known: 0, unresolved: [] }), clears: () => 7 },
  } as unknown as IndexWriter;
  return { writer, events };
}

describe('serialWriter', () => {
  it('runs one call at a time, in the order made, across the writer and its mempool view', async () => {
    const { writer, events } = slowWriter(5);
    const serial = serialWriter(writer);
    const results = await Promise.all([serial.applyBlocks([]), serial.mempool.add([]), serial.tip()]);
    expect(results).toEqual([undefined, { added: 1, known: 0, unresolved: [] }, null]);
    expect(events).toEqual(['start applyBlocks', 'end applyBlocks', 'start add', 'end add', 'start tip', 'end tip']);
    expect(serial.mempool.clears()).toBe(7);
  });

  it('fails only the call that failed; the next one runs after it', async () => {
    const { writer, events } = slowWriter(1);
    const serial = serialWriter(writer);
    const failed = serial.rollbackTip();
    const next = serial.tip();
    await expect(failed).rejects.toThrow('rollbackTip failed');
    await expect(next).resolves.toBeNull();
    expect(events).toEqual(['start rollbackTip', 'end rollbackTip', 'start tip', 'end tip']);
  });
});
