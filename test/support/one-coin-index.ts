/**
 * The smallest real index a test can serve: a genesis block and block 1 whose coinbase pays one script.
 * The genesis coinbase is never spendable, so Core keeps it out of the UTXO set; block 1's is the coin.
 */
import type { NetworkName } from '../../src/chain/params.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { toDisplayHex } from '../../src/chain/hash.js';
import { linkedBlock } from './blocks.js';

/** Returns block 1's hash (display hex): the tip the index answers at. */
export function writeOneCoinIndex(dbPath: string, network: NetworkName, script: Buffer, value = 123): string {
  const store = ChainStore.open(dbPath, { chain: 'LTC', network });
  const genesis = linkedBlock(0, Buffer.alloc(32), []);
  const tip = linkedBlock(1, genesis.hash, [
    {
      txid: Buffer.alloc(32, 2),
      inputs: [{ prevTxid: Buffer.alloc(32, 0), vout: 0xffffffff }],
      outputs: [{ value: BigInt(value), script }],
      coinbase: true,
      hogEx: false,
      mweb: false,
    },
  ]);
  store.applyBlocks([genesis, tip]);
  store.setNodeHeight(1, new Date());
  store.close();
  return toDisplayHex(tip.hash);
}
