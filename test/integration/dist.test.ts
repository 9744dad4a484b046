/**
 * The production build: `tsc -p tsconfig.build.json` into a package laid out as `npm run build` and the
 * Docker image lay it out (dist/, migrations/, config/, package.json), then plain `node` — no tsx — runs
 * every bin entry: `--version`, `--help` with the settings, and the API serving an index. The compiled
 * code may import only runtime dependencies (the image installs with --omit=dev).
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptToAddress } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { ChainBuilder } from '../support/blocks.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
};
const SCRIPT = Buffer.concat([Buffer.from([0x00, 0x14]), Buffer.alloc(20, 0x11)]);
const ADDRESS = scriptToAddress(chainParams('LTC', 'regtest'), SCRIPT)!;
let pack = '';
let data = '';

beforeAll(() => {
  pack = mkdtempSync(path.join(tmpdir(), 'addrsum-dist-'));
  data = path.join(pack, 'data');
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', path.join(pack, 'dist')],
    { cwd: ROOT },
  );
  // The status page's static files, copied beside the compiled code as `npm run build` does.
  expect(pkg.scripts.build).toContain('cp -r src/api/status-page dist/src/api/');
  cpSync(path.join(ROOT, 'src/api/status-page'), path.join(pack, 'dist/src/api/status-page'), { recursive: true });
  for (const item of ['package.json', 'migrations', 'config']) cpSync(path.join(ROOT, item), path.join(pack, item), { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(pack, 'node_modules'));
  const store = ChainStore.open(path.join(data, 'ltc.sqlite'), { chain: 'LTC', network: 'regtest', undoDepth: 10 });
  // Height 0 is the genesis block, whose coinbase never enters the UTXO set (as in Core).
  const chain = new ChainBuilder();
  store.applyBlocks([chain.blockPaying(SCRIPT, 1), chain.blockPaying(SCRIPT, 123)]);
  // As the indexer records it: the node was heard from just now, so the API counts the index as fresh.
  store.setNodeHeight(1, new Date());
  store.close();
}, 180_000);
afterAll(() => rmSync(pack, { recursive: true, force: true }));

const bin = (name: string) => path.join(pack, pkg.bin[name]!);
const runBin = (name: string, args: string[]) =>
  execFileSync(process.execPath, [bin(name), ...args], { cwd: pack, encoding: 'utf8', env: { ...process.env, ADDRSUM_DATA_DIR: data } });

describe('the production build', () => {
  it('has the four bin entries, each answering --version and --help with its settings', () => {
    expect(Object.keys(pkg.bin).sort()).toEqual(['addrsum-api', 'addrsum-indexer', 'addrsum-keys', 'addrsum-verify']);
    for (const name of Object.keys(pkg.bin)) {
      expect(statSync(bin(name)).isFile()).toBe(true);
      expect(runBin(name, ['--version']).trim()).toBe(pkg.version);
      const help = runBin(name, ['--help']);
      expect(help).toContain(`Usage: ${name}`);
      expect(help).toContain('ADDRSUM_DATA_DIR');
    }
    expect(runBin('addrsum-api', ['--help'])).toContain('ADDRSUM_PORT');
    expect(runBin('addrsum-indexer', ['--help'])).toContain('ADDRSUM_LTC_RPC_URL');
  });

  it('imports only runtime dependencies', () => {
    const files = (readdirSync(path.join(pack, 'dist'), { recursive: true }) as string[]).filter((f) => f.endsWith('.js'));
    const bare = new Set<string>();
    for (const f of files) {
      for (const m of readFileSync(path.join(pack, 'dist', f), 'utf8').matchAll(/\bfrom '([^'.][^']*)'/g)) {
        const spec = m[1]!;
        if (spec.startsWith('node:')) continue;
        bare.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    expect(bare.size).toBeGreaterThan(3);
    expect([...bare].filter((p) => !(p in pkg.dependencies))).toEqual([]);
  });

  it('prints hints naming a command that exists in the build', () => {
    const emptyData = path.join(pack, 'no-keys');
    const list = execFileSync(process.execPath, [bin('addrsum-keys'), 'list'], {
      cwd: pack,
      encoding: 'utf8',
      env: { ...process.env, ADDRSUM_DATA_DIR: emptyData, PATH: path.dirname(process.execPath) },
    });
    const hint = /Create one: (.+)$/m.exec(list)?.[1] ?? '';
    expect(hint).toBe('node dist/src/keys/addrsum-keys.js create');
    expect(readdirSync(pack)).not.toContain('no-keys');
    const [node, ...args] = hint.split(' ');
    const made = execFileSync(node === 'node' ? process.execPath : node!, args, {
      cwd: pack,
      encoding: 'utf8',
      env: { ...process.env, ADDRSUM_DATA_DIR: emptyData },
    });
    expect(made).toContain(`in ${path.join(emptyData, 'keys.sqlite')}.`);
  });

  it('serves an index with plain node', async () => {
    const runKeys = runBin('addrsum-keys', ['create']);
    const key = runKeys.trimEnd().split('\n').pop()!;
    const child = spawn(process.execPath, [bin('addrsum-api')], {
      cwd: pack,
      env: {
        ...process.env,
        ADDRSUM_DATA_DIR: data,
        ADDRSUM_PORT: '0',
        ADDRSUM_LTC_NETWORK: 'regtest',
        ADDRSUM_LTC_RPC_URL: 'http://u:p@127.0.0.1:1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      const port = await new Promise<number>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        child.on('exit', (code) => reject(new Error(`API exited ${String(code)}: ${out}`)));
      });
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/LTC/address/${ADDRESS}`, { headers: { 'x-api-key': key } });
      expect(res.status).toBe(200);
      const body = await res.text();
      expect(body, body).toMatch(/"balanceSatoshi":123,"balance":0\.00000123,"utxoCount":1,"blockHeight":1,/);
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const page = await fetch(`http://127.0.0.1:${port}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(await page.text()).toContain('/status-page/status.js');
      expect((await fetch(`http://127.0.0.1:${port}/status-page/status.js`)).status).toBe(200);
      expect(metrics).toContain(`addrsum_build_info{version="${pkg.version}",node="${process.version}"} 1`);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
