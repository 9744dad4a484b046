/**
 * The acceptance point "a real Electrum wallet syncs against our server on the default settings":
 * Debian's Electrum 4.3.4 (python3-electrum, installed by scripts/ensure-deps.sh) restores two WATCH-ONLY
 * wallets of addresses and syncs them over plain TCP from the API process's Electrum port (--oneserver):
 *   - 1,000 addresses of three kinds, each with a history (a key the node's wallet does not hold, so
 *     their coins stay put);
 *   - 4 addresses covering every kind of history: paid several times, spent, paid by MWEB peg-outs,
 *     and a payment still in the mempool.
 * Their balances and histories must equal what the node alone says (test/support/node-wallet-view.ts),
 * with no request refused (-101) and no reconnect. Twice: on the default settings (loopback is trusted:
 * not metered), and metered as a wallet from another machine is (electrum.trustedNetworks = []) with
 * every limit at its default. No limit is raised.
 *
 * Network route: Litecoin regtest, through test/support/electrum-ltc-regtest.py (Electrum's regtest
 * class with Litecoin regtest's genesis and address prefixes; Electrum skips proof of work on testnets
 * but checks every header's link back to the genesis and every merkle proof itself). Chosen over the
 * BTC network index on a Bitcoin-regtest stand-in chain because only Litecoin has MWEB: the wallet
 * holds addresses paid by peg-outs, whose coins come from HogEx transactions that the server must
 * serve without their MWEB part for Electrum to parse them.
 */
import { BIP32Factory } from 'bip32';
import { networks } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiProcess } from '../../harness/api-process.js';
import { waitFor } from '../../harness/indexer-process.js';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import { freePort } from '../../harness/ports.js';
import { MWEB_ACTIVATION_HEIGHT, mine } from '../../harness/regtest-chain.js';
import { coins, pegOut, scriptOf, spendWalletUtxos, walletUtxos } from '../../harness/regtest-wallet.js';
import { ElectrumCli } from '../support/electrum-cli.js';
import { ElectrumClient } from '../support/electrum-client.js';
import { scripthashOf } from '../support/electrum-oracle.js';
import { nodeWalletView, type WalletView } from '../support/node-wallet-view.js';

const SYNC_DEADLINE_MS = 180_000;
const MANY = 1000;

interface Balance {
  confirmed: string;
  unconfirmed?: string;
  unmatured?: string;
}

interface History {
  transactions: { txid: string; height: number; confirmations: number }[];
}

const toSats = (text: string | undefined): number => (text === undefined ? 0 : Math.round(Number(text) * 1e8));

let lw: LitecoindWorld;
/** The small wallet's addresses (every kind of history) and the large wallet's. */
let few: string[];
let many: string[];
let unconfirmed: string;
const pegOutHogExes: string[] = [];

/** The tip block's last transaction: its HogEx once MWEB is active. */
async function lastTxOfTip(): Promise<string> {
  const block = await lw.node.cli<{ tx: string[] }>('getblock', await lw.node.cli<string>('getbestblockhash'), 1);
  return block.tx.at(-1)!;
}

/** `n` addresses of a fresh key, a third each P2WPKH, P2PKH and P2SH-P2WPKH. */
async function derivedAddresses(n: number): Promise<string[]> {
  const tpub = BIP32Factory(ecc).fromSeed(Buffer.alloc(32, 0x35), networks.testnet).neutered().toBase58();
  const kinds = [`wpkh(${tpub}/0/*)`, `pkh(${tpub}/1/*)`, `sh(wpkh(${tpub}/2/*))`];
  const out: string[] = [];
  for (const [k, desc] of kinds.entries()) {
    const count = Math.ceil((n - k) / kinds.length);
    const { descriptor } = await lw.node.cli<{ descriptor: string }>('getdescriptorinfo', desc);
    out.push(...(await lw.node.cli<string[]>('deriveaddresses', descriptor, [0, count - 1])));
  }
  return out;
}

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
  few = [bech32, legacy, wrapped, pegOutOnly];
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

  // The large wallet: every address paid in one of four payments, every third once more in a later block.
  many = await derivedAddresses(MANY);
  const payAll = async (addresses: readonly string[], base: number): Promise<void> => {
    for (let i = 0; i < addresses.length; i += 250) {
      const outputs = Object.fromEntries(addresses.slice(i, i + 250).map((a, j) => [a, coins(base + i + j)]));
      await node.cli('sendmany', '', outputs);
    }
  };
  await payAll(many, 100_000);
  await mine(node, 1, miner);
  await payAll(
    many.filter((_, i) => i % 3 === 0),
    200_000,
  );
  await mine(node, 2, miner);
  unconfirmed = await node.cli<string>('sendtoaddress', bech32, coins(4_440_000));

  await lw.world.startIndexer({ env: { ADDRSUM_HISTORY: 'true', ADDRSUM_UTXO_LIST: 'true' } });
  await lw.world.waitForTip('the MWEB chain with history', 120_000);
}, 400_000);

afterAll(async () => {
  await lw?.close();
});

describe.each([
  { settings: 'the default settings', toml: '' },
  { settings: 'the default limits, metered as a remote wallet is (no trusted network)', toml: '[electrum]\ntrustedNetworks = []\n' },
])('a real Electrum 4.3.4 client syncs watch-only wallets from our Electrum port, on $settings', ({ toml }) => {
  let api: ApiProcess;
  let electrum: ElectrumCli;
  let expectedFew: WalletView;
  let expectedMany: WalletView;
  let syncMs: number;
  const wallets = { few: '', many: '' };

  beforeAll(async () => {
    const port = await freePort();
    api = await lw.world.startApi(toml, { ADDRSUM_HISTORY: 'true', ADDRSUM_UTXO_LIST: 'true', ADDRSUM_LTC_ELECTRUM_PORT: String(port) });
    await waitForServedMempool(port, few[0]!, unconfirmed);
    expectedFew = await nodeWalletView(lw.node, few);
    expectedMany = await nodeWalletView(lw.node, many);

    electrum = await ElectrumCli.start(port);
    wallets.few = electrum.walletAt('few');
    wallets.many = electrum.walletAt('many');
    const t0 = Date.now();
    for (const [path, addresses] of [
      [wallets.few, few],
      [wallets.many, many],
    ] as const) {
      await electrum.command('restore', addresses.join(' '), '-w', path);
      await electrum.command('load_wallet', '-w', path);
    }
    for (const path of [wallets.few, wallets.many]) {
      await waitFor(
        `Electrum to synchronize ${path}`,
        async () => (await electrum.json<boolean>('is_synchronized', '-w', path)) === true,
        SYNC_DEADLINE_MS,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\nElectrum's log:\n${electrum.daemonLog.slice(-20_000)}`);
      });
    }
    syncMs = Date.now() - t0;
  }, 600_000);

  afterAll(async () => {
    await electrum?.close();
    await api?.stop();
  });

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

  async function scrape(): Promise<string[]> {
    return (await (await fetch(`${api.url}/metrics`)).text()).split('\n');
  }

  it('the chain has what the wallets must cover: several txs, peg-out coins, a mempool payment, 1,000 used addresses', () => {
    expect(expectedFew.confirmedTxids).toBeGreaterThanOrEqual(12);
    expect(expectedFew.mempoolTxids).toBe(1);
    for (const hogEx of pegOutHogExes) expect(expectedFew.txids).toContain(hogEx);
    expect(expectedFew.unconfirmedSats).toBe(4_440_000);
    expect(many).toHaveLength(MANY);
    expect(new Set(many).size).toBe(MANY);
    expect(expectedMany.confirmedTxids).toBe(6);
    console.info(`Electrum synced ${few.length} + ${many.length} addresses in ${syncMs} ms (${toml === '' ? 'defaults' : 'metered'})`);
  });

  it.each(['few', 'many'] as const)(
    'getbalance of the %s wallet equals the node UTXO set of its addresses and its mempool',
    async (which) => {
      const expected = which === 'few' ? expectedFew : expectedMany;
      const balance = await electrum.json<Balance>('getbalance', '-w', wallets[which]);
      expect(toSats(balance.confirmed), withLog(JSON.stringify(balance))).toBe(expected.confirmedSats);
      expect(toSats(balance.unconfirmed), withLog(JSON.stringify(balance))).toBe(expected.unconfirmedSats);
      expect(balance.unmatured).toBeUndefined();
    },
  );

  it.each(['few', 'many'] as const)(
    'onchain_history of the %s wallet: exactly the txids touching its addresses, every confirmed one verified',
    async (which) => {
      const expected = which === 'few' ? expectedFew : expectedMany;
      const history = await electrum.json<History>('onchain_history', '-w', wallets[which]);
      const got = history.transactions.map((t) => t.txid).sort();
      expect(got, withLog('history differs')).toEqual([...expected.txids].sort());
      expect(history.transactions.filter((t) => t.height <= 0)).toHaveLength(expected.mempoolTxids);
      // Electrum counts confirmations only for a transaction whose merkle proof it verified against a header.
      const tip = await lw.node.cli<number>('getblockcount');
      const unverified = history.transactions.filter((t) => t.height > 0 && t.confirmations !== tip - t.height + 1);
      expect(unverified, withLog('confirmed but not verified')).toEqual([]);
    },
  );

  it('refused nothing and closed nothing: one Electrum session, no -101, no disconnect', async () => {
    const lines = await scrape();
    const value = (l: string): number => Number(l.split(' ').pop());
    // server.version opens each session: the mempool probe's, and the one of Electrum's daemon.
    const versions = lines.filter((l) => l.startsWith('addrsum_api_electrum_requests_total{') && l.includes('method="server.version"'));
    expect(
      versions.reduce((sum, l) => sum + value(l), 0),
      withLog('sessions'),
    ).toBe(2);
    const refused = lines.filter((l) => l.startsWith('addrsum_api_electrum_requests_total{') && l.includes('outcome="rate_limited"'));
    expect(refused.reduce((sum, l) => sum + value(l), 0)).toBe(0);
    const closed = lines.filter((l) => l.startsWith('addrsum_api_electrum_disconnects_total{'));
    expect(closed.length).toBeGreaterThan(0);
    expect(closed.filter((l) => value(l) !== 0)).toEqual([]);
    expect(electrum.daemonLog).not.toMatch(/GracefulDisconnect|excessive resource usage/i);
  });
});
