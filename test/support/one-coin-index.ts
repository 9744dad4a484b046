/**
 * The smallest real index a test can serve: a genesis block and block 1 whose coinbase pays one script.
 * The genesis coinbase is never spendable, so Core keeps it out of the UTXO set; block 1's is the coin.
 */
import type { NetworkName } from '../../src/chain/params.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';

export function writeOneCoinIndex(dbPath: string, network: NetworkName, script: Buffer, value = 123): void {
  const store = ChainStore.open(dbPath, { chain: 'LTC', network });
  store.applyBlocks([
    { height: 0, hash: Buffer.alloc(32, 9), prevHash: Buffer.alloc(32, 0), txs: [] },
    {
      height: 1,
      hash: Buffer.alloc(32, 1),
      prevHash: Buffer.alloc(32, 9),
      txs: [
        {
          txid: Buffer.alloc(32, 2),
          inputs: [{ prevTxid: Buffer.alloc(32, 0), vout: 0xffffffff }],
          outputs: [{ value: BigInt(value), script }],
          coinbase: true,
          hogEx: false,
        },
      ],
    },
  ]);
  store.setNodeHeight(1, new Date());
  store.close();
}
