/**
 * `coinbase` of outputs loaded from a snapshot: the decoder carries the (height, txid) of the coinbase
 * coins to the load (indexer/snapshot-coinbases.ts), which records them in snapshot_coinbase. A listed
 * output is then a coinbase output exactly when its txid is that height's coinbase txid: true for every
 * output of it, false for other transactions at that height and for every output at a height with no
 * coinbase coin, null where two coins disagree, and null everywhere for a load that did not record them
 * (as an index bootstrapped before this). Blocks synced on top answer from blocks.coinbase_txid. A
 * resumed load records the coinbase coins of the chunks committed before the kill too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChainCode } from '../../src/chain/params.js';
import type { SnapshotCoin } from '../../src/chain/snapshot-coin.js';
import { coreGroup, coreHeader, ltcHeader, ltcRecords } from '../../src/chain/snapshot-writer.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { linkedBlock } from '../support/blocks.js';
import { SqliteIndexWriter } from '../../src/store/sqlite/engine.js';
import { decodeOutpoint } from '../../src/store/outpoint.js';
import { scriptKey } from '../../src/store/script-key.js';
import { UtxoPager } from '../../src/store/sqlite/utxo-page.js';
import { loadSnapshot } from '../../indexer/bootstrap.js';
import { SnapshotFile } from '../../indexer/snapshot-reader.js';
import type { UtxoPosition, UtxoRow } from '../../src/store/index-model.js';

const BASE_HEIGHT = 300;
const BASE = Buffer.alloc(32, 0xb0);
const SCRIPTS = [0, 1].map((n) => Buffer.concat([Buffer.from([0x00, 0x14]), Buffer.alloc(20, 0x40 + n)]));

interface Tx {
  txid: Buffer;
  height: number;
  coinbase: boolean;
  vouts: number[];
  /** What the listing must say for its outputs. */
  want: boolean | null;
}

// Ascending txids (the append path). Heights: 100 has a coinbase and another transaction; 150 none;
// 200 a coinbase with only a late vout unspent; 250 two coinbase txids (impossible on a real chain);
// the base height has a coinbase and another transaction.
const TXS: Tx[] = [
  { txid: Buffer.alloc(32, 0x01), height: 100, coinbase: true, vouts: [0, 1], want: true },
  { txid: Buffer.alloc(32, 0x02), height: 100, coinbase: false, vouts: [0, 3], want: false },
  { txid: Buffer.alloc(32, 0x03), height: 150, coinbase: false, vouts: [0, 1, 2], want: false },
  { txid: Buffer.alloc(32, 0x04), height: 200, coinbase: true, vouts: [300], want: true },
  { txid: Buffer.alloc(32, 0x05), height: 250, coinbase: true, vouts: [0], want: null },
  { txid: Buffer.alloc(32, 0x06), height: 250, coinbase: true, vouts: [1], want: null },
  { txid: Buffer.alloc(32, 0x07), height: 300, coinbase: false, vouts: [1], want: false },
  { txid: Buffer.alloc(32, 0x08), height: 300, coinbase: true, vouts: [0, 2], want: true },
];

const dir = mkdtempSync(join(tmpdir(), 'addrsum-cbload-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(chain: ChainCode): string {
  const path = join(dir, `utxo-${chain}.dat`);
  let n = 0;
  const body = TXS.map((tx) => {
    const outputs = tx.vouts.map((vout) => {
      const coin: SnapshotCoin = { height: tx.height, coinbase: tx.coinbase, value: 1000 + n, script: SCRIPTS[n++ % 2]! };
      return { vout, coin };
    });
    return chain === 'BTC' ? coreGroup(tx.txid, outputs) : ltcRecords(tx.txid, outputs);
  });
  const header = chain === 'BTC' ? coreHeader('fabfb5da', BASE, n) : ltcHeader(BASE, n, n);
  writeFileSync(path, Buffer.concat([header, ...body]));
  return path;
}

/** Every listed output of every script, paged two at a time: "txid-byte:vout" → coinbase. */
function listed(store: ChainStore): Map<string, boolean | null> {
  const pager = new UtxoPager(store.db);
  const out = new Map<string, boolean | null>();
  for (const script of SCRIPTS) {
    let after: UtxoPosition | null = null;
    do {
      const page = pager.read({ keys: [scriptKey(script)], after, limit: 2, mempool: false, check: () => undefined });
      if (page.kind !== 'page') throw new Error(`listing answered ${page.kind}`);
      for (const r of page.rows as UtxoRow[]) {
        const { txid, vout } = decodeOutpoint(r.outpoint);
        out.set(`${txid[0]}:${vout}`, r.coinbase);
      }
      after = page.next;
    } while (after !== null);
  }
  return out;
}

const expected = (pick: (tx: Tx) => boolean | null): Map<string, boolean | null> =>
  new Map(TXS.flatMap((tx) => tx.vouts.map((v) => [`${tx.txid[0]}:${v}`, pick(tx)] as const)));

describe.each(['BTC', 'LTC'] as const)('%s snapshot coinbase flags', (chain) => {
  it('lists coinbase true/false exactly from the snapshot, and blocks on top from their own coinbase', async () => {
    const store = ChainStore.open(':memory:', { chain, network: 'regtest' });
    try {
      const snap = {
        file: SnapshotFile.open(write(chain), chain, 'regtest'),
        height: BASE_HEIGHT,
        hash: BASE,
        prevHash: Buffer.alloc(32, 0xaf),
      };
      await loadSnapshot(snap, new SqliteIndexWriter(store, chain, 'regtest'), { info: () => undefined });
      store.setUtxoList(true);
      expect(listed(store)).toEqual(expected((tx) => tx.want));
      // A block on top: its coinbase output true, a spend's output false; the snapshot's answers stand.
      const block = linkedBlock(BASE_HEIGHT + 1, BASE, [
        {
          txid: Buffer.alloc(32, 0x09),
          inputs: [{ prevTxid: Buffer.alloc(32), vout: 0xffffffff }],
          outputs: [{ value: 50n, script: SCRIPTS[0]! }],
          coinbase: true,
          hogEx: false,
          mweb: false,
        },
        {
          txid: Buffer.alloc(32, 0x0a),
          inputs: [{ prevTxid: TXS[2]!.txid, vout: 1 }],
          outputs: [{ value: 40n, script: SCRIPTS[1]! }],
          coinbase: false,
          hogEx: false,
          mweb: false,
        },
      ]);
      store.applyBlocks([block]);
      const want = expected((tx) => tx.want);
      want.delete('3:1');
      want.set('9:0', true).set('10:0', false);
      expect(listed(store)).toEqual(want);
    } finally {
      store.close();
    }
  });

  it('records the coinbase txids of coins committed before a kill when the load resumes', async () => {
    const store = ChainStore.open(':memory:', { chain, network: 'regtest' });
    try {
      const path = write(chain);
      // What a kill after the first chunk leaves: the coins of the first three txids, the pending base.
      const first = [...SnapshotFile.open(path, chain, 'regtest').rows()].filter((r) => r[0][0]! <= 3);
      const insert = store.db.prepare('INSERT INTO utxos (outpoint, script_key, value, height) VALUES (?, ?, ?, ?)');
      for (const r of first) insert.run(...r);
      store.db.prepare("INSERT INTO meta (key, value) VALUES ('bootstrap_base', ?)").run(BASE);
      const lines: string[] = [];
      const snap = { file: SnapshotFile.open(path, chain, 'regtest'), height: BASE_HEIGHT, hash: BASE, prevHash: Buffer.alloc(32, 0xaf) };
      await loadSnapshot(snap, new SqliteIndexWriter(store, chain, 'regtest'), { info: (_obj, msg) => lines.push(msg) });
      expect(lines.some((l) => /resuming the interrupted load/.test(l))).toBe(true);
      store.setUtxoList(true);
      expect(listed(store)).toEqual(expected((tx) => tx.want));
    } finally {
      store.close();
    }
  });

  it('says null at every snapshot height when the load did not record the coinbase txids (an earlier bootstrap)', () => {
    const store = ChainStore.open(':memory:', { chain, network: 'regtest' });
    try {
      const source = SnapshotFile.open(write(chain), chain, 'regtest').loadSource();
      try {
        store.loadSnapshot(source.rows, { height: BASE_HEIGHT, hash: BASE, prevHash: Buffer.alloc(32, 0xaf) }, { sums: source.sums });
      } finally {
        source.close();
      }
      store.setUtxoList(true);
      expect(listed(store)).toEqual(expected(() => null));
    } finally {
      store.close();
    }
  });
});
