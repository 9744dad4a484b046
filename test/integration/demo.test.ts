/**
 * `npm run demo` as a user meets it: the demo runs as a child process (in a temp dir, API on a free
 * port), and its printed curl lines are executed for real. Their answers must equal both the figures
 * the demo printed and the node's own `scantxoutset`, asked here directly through the node's RPC
 * (URL and cookie from the demo's demo.json). Then SIGINT must stop everything — litecoind included —
 * and exit 0. A second run must reuse the chain, add blocks and answer as correctly again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeClient } from '../../src/node/node-client.js';
import { parseCoins } from '../../src/chain/amount.js';
import { REPO_ROOT } from '../../harness/indexer-process.js';
import { parseJsonDecimalsAsText } from '../../harness/rpc-json.js';

interface Printed {
  key: string;
  url: string;
  address: string;
  status: number;
  sats: number;
  utxos: number;
  mark: string;
}

interface DemoInfo {
  rpcUrl: string;
  cookieFile: string;
  nodeDatadir: string;
  litecoindPid: number;
  indexerPid: number;
  apiPid: number;
}

interface Answer {
  status: number;
  data: { balanceSatoshi?: number; utxoCount?: number; blockHash?: string; code?: string };
}

class DemoRun {
  readonly child: ChildProcess;
  out = '';
  readonly exited: Promise<number | string>;

  constructor(dir: string) {
    this.child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], {
      cwd: REPO_ROOT,
      env: { ...process.env, ADDRSUM_DEMO_DIR: dir, ADDRSUM_DEMO_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (d: Buffer) => (this.out += d.toString()));
    this.child.stderr?.on('data', (d: Buffer) => (this.out += d.toString()));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  }

  /** Waits until the output matches `re` (fails early when the demo exits). */
  async waitFor(re: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = re.exec(this.out);
      if (m) return m;
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`demo exited before ${re}:\n${this.out}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${re}:\n${this.out}`);
      await sleep(100);
    }
  }

  /** SIGINT; resolves with the exit code, or 'timeout' after 30 s. */
  async interrupt(): Promise<number | string> {
    this.child.kill('SIGINT');
    return Promise.race([this.exited, sleep(30_000).then(() => 'timeout')]);
  }
}

const CURL =
  /^curl -s -H 'x-api-key: ([^']+)' (http:\/\/127\.0\.0\.1:\d+\/api\/v1\/LTC\/address\/(\S+))\n {2}← (\d{3}) .*\n {2}node says: (\d+) sat, (\d+) utxos (\S)/gm;
const MWEB_CURL = /^curl -s -H 'x-api-key: ([^']+)' (http:\/\/\S+\/address\/(tmweb1\S+))$/m;
const TIP = /index at the node's tip[^\n]*: height (\d+), block ([0-9a-f]{64})/;
const WATCHING = /Ctrl-C to stop\n/;

function printedLines(out: string): Printed[] {
  return [...out.matchAll(CURL)].map((m) => ({
    key: m[1] as string,
    url: m[2] as string,
    address: m[3] as string,
    status: Number(m[4]),
    sats: Number(m[5]),
    utxos: Number(m[6]),
    mark: m[7] as string,
  }));
}

/** The request a printed curl line makes, made with fetch. */
async function curl(p: { url: string; key: string }): Promise<Answer> {
  const res = await fetch(p.url, { headers: { 'x-api-key': p.key } });
  return { status: res.status, data: ((await res.json()) as { data: Answer['data'] }).data };
}

/** The node's own figures for one address, straight from its RPC. */
async function nodeScan(node: NodeClient, address: string): Promise<{ sats: number; utxos: number; bestBlock: string }> {
  const r = await node.call<{ success: boolean; bestblock: string; total_amount: string; unspents: { amount: string }[] }>(
    'scantxoutset',
    ['start', [`addr(${address})`]],
    { parseJson: parseJsonDecimalsAsText },
  );
  expect(r.success).toBe(true);
  const sats = r.unspents.reduce((s, u) => s + parseCoins(u.amount), 0n);
  expect(sats).toBe(parseCoins(r.total_amount));
  return { sats: Number(sats), utxos: r.unspents.length, bestBlock: r.bestblock };
}

/** A process that exists (zombies of our own children excepted). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** litecoind processes whose command line names this datadir. */
function nodesUsing(datadir: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
        return cmd.includes('litecoind') && cmd.includes(`-datadir=${datadir}`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Runs one demo to its watch loop, checks everything it printed, interrupts it, checks the cleanup. */
async function runAndCheck(dir: string, expectReuse: boolean, waitForBlock: boolean): Promise<number> {
  const demo = new DemoRun(dir);
  try {
    await demo.waitFor(WATCHING, 150_000);
    expect(demo.out.includes('reusing the chain from an earlier run')).toBe(expectReuse);
    const info = JSON.parse(await readFile(join(dir, 'demo.json'), 'utf8')) as DemoInfo;
    const tip = TIP.exec(demo.out);
    expect(tip, demo.out).not.toBeNull();
    const tipHash = tip?.[2] as string;
    const node = new NodeClient({ url: info.rpcUrl, cookieFile: info.cookieFile });
    try {
      const printed = printedLines(demo.out);
      expect(printed.length, demo.out).toBeGreaterThanOrEqual(3);
      expect(printed.filter((p) => p.sats > 0).length).toBeGreaterThanOrEqual(3);
      for (const p of printed) {
        // What the demo printed agrees with itself (✓) …
        expect({ address: p.address, status: p.status, mark: p.mark }).toEqual({ address: p.address, status: 200, mark: '✓' });
        // … with what the API answers to that very request, and with the node asked directly. The demo
        // mines its first block 10 s after the line we waited for: the tip is still the printed one.
        const answer = await curl(p);
        const scan = await nodeScan(node, p.address);
        expect(answer.data, p.address).toMatchObject({ balanceSatoshi: p.sats, utxoCount: p.utxos, blockHash: tipHash });
        expect({ address: p.address, sats: scan.sats, utxos: scan.utxos, tip: scan.bestBlock }).toEqual({
          address: p.address,
          sats: p.sats,
          utxos: p.utxos,
          tip: tipHash,
        });
      }
      const mweb = MWEB_CURL.exec(demo.out);
      expect(mweb, demo.out).not.toBeNull();
      const refused = await curl({ key: mweb?.[1] as string, url: mweb?.[2] as string });
      expect({ status: refused.status, code: refused.data.code }).toEqual({ status: 400, code: 'UNSUPPORTED_ADDRESS' });

      if (waitForBlock) {
        // After a mined block the answers follow the node's new tip.
        const mined = await demo.waitFor(/^block (\d+) mined/m, 30_000);
        expect(Number(mined[1])).toBe(Number(tip?.[1]) + 1);
        for (const p of printed) {
          let answer: Answer | undefined;
          let scan: Awaited<ReturnType<typeof nodeScan>> | undefined;
          // Another block may land between the two questions: ask again until both name the same tip.
          for (let i = 0; i < 3 && (answer === undefined || answer.data.blockHash !== scan?.bestBlock); i++) {
            answer = await curl(p);
            scan = await nodeScan(node, p.address);
          }
          expect(answer?.data, p.address).toMatchObject({ balanceSatoshi: scan?.sats, utxoCount: scan?.utxos, blockHash: scan?.bestBlock });
        }
      }
    } finally {
      node.close();
    }

    const code = await demo.interrupt();
    expect({ code, out: demo.out.slice(-300) }).toMatchObject({ code: 0 });
    expect(demo.out).toMatch(/stopped\.\n$/);
    for (const pid of [info.litecoindPid, info.indexerPid, info.apiPid]) expect(alive(pid), `pid ${pid}`).toBe(false);
    expect(nodesUsing(info.nodeDatadir)).toEqual([]);
    return Number(tip?.[1]);
  } finally {
    if (demo.child.exitCode === null && demo.child.signalCode === null) {
      demo.child.kill('SIGINT');
      await Promise.race([demo.exited, sleep(30_000)]);
      demo.child.kill('SIGKILL');
    }
  }
}

describe('npm run demo', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'addrsum-demo-'));
  });

  afterAll(async () => {
    // The node is stopped by then (or by its watchdog within seconds of a killed demo).
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  let firstTip = 0;

  it("prints curl lines whose answers are the node's scantxoutset figures, and stops on SIGINT", async () => {
    firstTip = await runAndCheck(dir, false, true);
  }, 180_000);

  it('a second run reuses the chain, adds blocks, and answers as exactly', async () => {
    expect(firstTip).toBeGreaterThan(0);
    const tip = await runAndCheck(dir, true, false);
    // The first run mined at least one block while watching, this one two more before indexing.
    expect(tip).toBeGreaterThanOrEqual(firstTip + 3);
  }, 90_000);
});
