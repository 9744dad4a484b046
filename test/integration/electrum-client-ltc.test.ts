/**
 * The acceptance point "a real Electrum client syncs against our server": Debian's Electrum 4.3.4
 * (python3-electrum, installed by scripts/ensure-deps.sh) restores a WATCH-ONLY wallet of addresses and
 * syncs it over plain TCP from the API process's Electrum port (--oneserver), and its balance and
 * history must equal what the node alone says (test/support/node-wallet-view.ts).
 *
 * Network route: Litecoin regtest, through test/support/electrum-ltc-regtest.py (Electrum's regtest
 * class with Litecoin regtest's genesis and address prefixes; Electrum skips proof of work on testnets
 * but checks every header's link back to the genesis and every merkle proof itself). Chosen over the
 * BTC network index on a Bitcoin-regtest stand-in chain because only Litecoin has MWEB: the wallet
 * holds addresses paid by peg-outs, whose coins come from HogEx transactions that the server must
 * serve without their MWEB part for Electrum to parse them.
 *
 * The chain: MWEB activated at 432 by a peg-in, ordinary addresses (bech32, legacy, P2SH-segwit) paid
 * several times and spent (out of the wallet and between its addresses), peg-outs to a fresh address
 * and to a wallet address in two blocks, and a payment still in the mempool.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../harness/indexer-process.js';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import { freePort } from '../../harness/ports.js';
import { MWEB_ACTIVATION_HEIGHT, mine } from '../../harness/regtest-chain.js';
import { coins, pegOut, scriptOf, spendWalletUtxos, walletUtxos } from '../../harness/regtest-wallet.js';
import { ElectrumCli } from '../support/electrum-cli.js';
import { ElectrumClient } from '../support/electrum-client.js';
import { scripthashOf } from '../support/electrum-oracle.js';
import { nodeWalletView, type WalletView } from '../support/node-wallet-view.js';

/** Electrum requests are paid from the anonymous tier's bucket: room for a whole wallet sync. */
const NO_LIMITS = '[api.tiers.default]\nrate = 1000000\nburst = 1000000\n';
const SYNC_DEADLINE_MS = 120_000;

interface Balance {
  confirmed: string;
  unconfirmed?: string;
  unmatured?: string;
}

interface History {
  transactions: { txid: string; height: number; confirmations: number }[];
}

const toSats = (text: string | undefined): number => (text === undefined ? 0 : Math.round(Number(text) * 1e8));

describe('a real Electrum 4.3.4 client syncs a watch-only wallet from our Electrum port', () => {
  let lw: LitecoindWorld;
  let electrum: ElectrumCli;
  let watched: string[];
  let expected: WalletView;
  let syncMs: number;
  const pegOutHogExes: string[] = [];

  beforeAll(async () => {
    lw = await LitecoindWorld.start();
    const node = lw.node;
    const miner = await node.cli<string>('getnewaddress', '', 'bech32');
    await mine(node, MWEB_ACTIVATION_HEIGHT - 1, miner);
    await node.cli('sendtoaddress', await node.cli<string>('getnewaddress', '', 'mweb'), coins(5_000_000_000));
    await mine(node, 1, miner);

    const bech32 = await node.cli<string>('getnewaddress', '', 'bech32');
    const legacy = await node.cli<string>('getnewaddress', '', 'legacy');
    const wrapped = await node.cli<string>('getnewaddress', '', 'p2sh-segwit');
    const pegOutOnly = await node.cli<string>('getnewaddress', '', 'bech32');
    watched = [bech32, legacy, wrapped, pegOutOnly];
    for (let round = 0; round < 3; round++) {
      for (const [i, a] of [bech32, legacy, wrapped].entries())
        await node.cli('sendtoaddress', a, coins(10_000_000 * (i + 1) + round * 1_111));
      await mine(node, 1, miner);
    }
    // Spends: the bech32 address's coins out of the wallet, the wrapped address's into the legacy one.
    const external = await node.cli<string>('getnewaddress', '', 'bech32');
    await spendWalletUtxos(node, (await walletUtxos(node, { addresses: [bech32] })).slice(0, 2), external);
    await spendWalletUtxos(node, await walletUtxos(node, { addresses: [wrapped] }), legacy);
    await mine(node, 1, miner);
    // Peg-outs in two blocks: coins that come out of HogEx transactions.
    await pegOut(node, [{ address: pegOutOnly, sats: 70_000_000 }]);
    await mine(node, 1, miner);
    pegOutHogExes.push(await lastTxOfTip());
    await pegOut(node, [
      { address: pegOutOnly, sats: 25_000_000 },
      { address: legacy, sats: 15_000_000 },
    ]);
    await mine(node, 1, miner);
    pegOutHogExes.push(await lastTxOfTip());
    await mine(node, 2, miner);
    const unconfirmed = await node.cli<string>('sendtoaddress', bech32, coins(4_440_000));

    await lw.world.startIndexer({ env: { ADDRSUM_HISTORY: 'true' } });
    await lw.world.waitForTip('the MWEB chain with history', 120_000);
    const port = await freePort();
    await lw.world.startApi(NO_LIMITS, { ADDRSUM_HISTORY: 'true', ADDRSUM_LTC_ELECTRUM_PORT: String(port) });
    await waitForServedMempool(port, bech32, unconfirmed);
    expected = await nodeWalletView(node, watched);

    electrum = await ElectrumCli.start(port);
    await electrum.command('restore', watched.join(' '), '-w', electrum.walletPath);
    await electrum.command('load_wallet', '-w', electrum.walletPath);
    const t0 = Date.now();
    await waitFor(
      'Electrum to synchronize the wallet',
      async () => (await electrum.json<boolean>('is_synchronized', '-w', electrum.walletPath)) === true,
      SYNC_DEADLINE_MS,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\nElectrum's log:\n${electrum.daemonLog.slice(-20_000)}`);
    });
    syncMs = Date.now() - t0;
  }, 400_000);

  afterAll(async () => {
    await electrum?.close();
    await lw?.close();
  });

  /** The tip block's last transaction: its HogEx once MWEB is active. */
  async function lastTxOfTip(): Promise<string> {
    const block = await lw.node.cli<{ tx: string[] }>('getblock', await lw.node.cli<string>('getbestblockhash'), 1);
    return block.tx.at(-1)!;
  }

  /** The API process has the mempool payment (the indexer follows the mempool on its own schedule). */
  async function waitForServedMempool(port: number, address: string, txid: string): Promise<void> {
    const client = await ElectrumClient.connect(port);
    try {
      await client.call('server.version', ['test', '1.4']);
      const scripthash = scripthashOf(await scriptOf(lw.node, address));
      await waitFor(
        'the mempool payment on the Electrum port',
        async () => {
          const got = (await client.call('blockchain.scripthash.get_mempool', [scripthash])).result as { tx_hash: string }[] | undefined;
          return got?.some((t) => t.tx_hash === txid) === true;
        },
        60_000,
      );
    } finally {
      client.close();
    }
  }

  const withLog = (what: string): string => `${what}\nElectrum's log (end):\n${electrum.daemonLog.slice(-8_000)}`;

  it('the chain has what the wallet must cover: several txs, peg-out coins and a mempool payment', () => {
    expect(expected.confirmedTxids).toBeGreaterThanOrEqual(12);
    expect(expected.mempoolTxids).toBe(1);
    for (const hogEx of pegOutHogExes) expect(expected.txids).toContain(hogEx);
    expect(expected.unconfirmedSats).toBe(4_440_000);
    console.info(`Electrum synced ${watched.length} addresses, ${expected.txids.size} txs in ${syncMs} ms`);
  });

  it('getbalance: confirmed equals the node UTXO set of the addresses, unconfirmed the mempool payment', async () => {
    const balance = await electrum.json<Balance>('getbalance', '-w', electrum.walletPath);
    expect(toSats(balance.confirmed), withLog(JSON.stringify(balance))).toBe(expected.confirmedSats);
    expect(toSats(balance.unconfirmed), withLog(JSON.stringify(balance))).toBe(expected.unconfirmedSats);
    expect(balance.unmatured).toBeUndefined();
  });

  it('onchain_history: exactly the txids touching the addresses, every confirmed one verified (mempool at 0 or below)', async () => {
    const history = await electrum.json<History>('onchain_history', '-w', electrum.walletPath);
    const got = history.transactions.map((t) => t.txid).sort();
    expect(got, withLog('history differs')).toEqual([...expected.txids].sort());
    expect(history.transactions.filter((t) => t.height <= 0)).toHaveLength(1);
    // Electrum counts confirmations only for a transaction whose merkle proof it verified against a header.
    const tip = await lw.node.cli<number>('getblockcount');
    const unverified = history.transactions.filter((t) => t.height > 0 && t.confirmations !== tip - t.height + 1);
    expect(unverified, withLog('confirmed but not verified')).toEqual([]);
  });
});
