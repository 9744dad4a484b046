/**
 * The indexer's log lines for the UTXO listing's build (indexer/utxo-list-log.ts): a start line naming
 * the shards to build, one line per shard with its place of 16, the UTXOs done and an ETA, and an end
 * line, as the events come from the store.
 */
import { describe, expect, it } from 'vitest';
import { logUtxoListEvent } from '../../indexer/utxo-list-log.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { randomChain } from '../support/blocks.js';

describe('UTXO listing log lines', () => {
  it('logs the start, each shard in order with its progress, and the end', () => {
    const store = ChainStore.open(':memory:', { chain: 'LTC', network: 'regtest' });
    try {
      store.applyBlocks(randomChain(3, { blocks: 40, scripts: 30 }));
      const lines: { obj: Record<string, unknown>; msg: string }[] = [];
      store.setUtxoList(true, (e) => logUtxoListEvent({ info: (obj, msg) => lines.push({ obj: obj as Record<string, unknown>, msg }) }, e));
      const total = store.totals().utxos;
      expect(lines[0]!.msg).toBe(
        `building the UTXO listing index: 16 of its 16 shards over ${total} UTXOs (a kill keeps the shards already built)`,
      );
      const shards = lines.slice(1, -1);
      expect(shards.map((l) => l.obj.built)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
      for (const [i, l] of shards.entries()) {
        expect(l.msg).toMatch(
          new RegExp(
            `^UTXO listing index: shard ${i.toString(16)} built \\(${i + 1}/16\\), \\d+/${total} UTXOs, \\d+:\\d\\d:\\d\\d so far, ETA \\d+:\\d\\d:\\d\\d$`,
          ),
        );
      }
      expect(shards.at(-1)!.obj).toMatchObject({ utxos: total, etaSeconds: 0 });
      expect(lines.at(-1)).toMatchObject({ msg: 'UTXO listing index built', obj: { utxos: total } });
      lines.length = 0;
      store.setUtxoList(false, (e) =>
        logUtxoListEvent({ info: (obj, msg) => lines.push({ obj: obj as Record<string, unknown>, msg }) }, e),
      );
      expect(lines.map((l) => l.msg)).toEqual(['UTXO listing index removed (utxoList is off)']);
    } finally {
      store.close();
    }
  });

  it('says that an index built in one part (PostgreSQL) starts again after a kill', () => {
    const lines: string[] = [];
    logUtxoListEvent({ info: (_obj, msg) => lines.push(msg) }, { kind: 'building', utxos: 12, shards: 1, of: 1 });
    expect(lines).toEqual(['building the UTXO listing index over 12 UTXOs (in one transaction: a kill starts it again)']);
  });
});
