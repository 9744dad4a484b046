/** `npm run keys -- create|list|revoke`: the command's main, in-process, over a temp ADDRSUM_DATA_DIR. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { main } from '../../src/keys/cli.js';
import { loadConfig } from '../../src/config.js';
import { chainParams } from '../../src/chain/params.js';
import { KeyCache } from '../../src/store/sqlite/key-cache.js';
import { Caller, FakeIndex } from '../support/api-world.js';

const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-keys-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function keys(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { out: (t: string) => void (stdout += t), err: (t: string) => void (stderr += t) };
  const code = await main(args, () => loadConfig({ env: { ADDRSUM_DATA_DIR: dir } }), io);
  return Promise.resolve({ code, stdout, stderr });
}

const lastLine = (text: string) => text.trimEnd().split('\n').pop() ?? '';

describe('keys CLI', () => {
  it('list and revoke leave a missing keys file missing; create names the file it wrote', async () => {
    const file = path.join(dir, 'keys.sqlite');
    const empty = await keys('list');
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain(`No keys yet in ${file}. Create one: npm run keys -- create`);
    expect(JSON.parse((await keys('list', '--json')).stdout)).toEqual([]);
    expect((await keys('revoke', 'key_000000000000')).code).toBe(1);
    expect(existsSync(file)).toBe(false);
    const created = await keys('create');
    expect(created.stdout).toContain(` in ${file}.`);
    expect(existsSync(file)).toBe(true);
  });

  it('creates private keys by default and prints the key as the last line', async () => {
    const r = await keys('create');
    expect(r.code).toBe(0);
    expect(lastLine(r.stdout)).toMatch(/^asum_[0-9A-Za-z]{43}$/);
    expect(r.stdout).toMatch(/Created key key_[0-9a-f]{12} \(tier private\)/);
  });

  it('creates, lists and revokes', async () => {
    const created = await keys('create', '--tier', 'default', '--label', 'ci bot');
    expect(created.code).toBe(0);
    const key = lastLine(created.stdout);
    const id = /Created key (key_[0-9a-f]{12})/.exec(created.stdout)?.[1] ?? '';
    expect(created.stdout).toContain('tier default, label "ci bot"');

    const table = await keys('list');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`${id}\\s+default\\s+active\\s+\\S+\\s+ci bot`));
    expect(table.stdout).not.toContain(key.slice(5));
    const json = JSON.parse((await keys('list', '--json')).stdout) as Array<Record<string, unknown>>;
    expect(json.find((k) => k.id === id)).toMatchObject({ tier: 'default', label: 'ci bot', revokedAt: null });
    expect(JSON.stringify(json)).not.toContain(key.slice(5));

    const revoked = await keys('revoke', id);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked key ${id}`);
    expect((await keys('revoke', id)).stdout).toContain('already revoked');
    expect((await keys('list')).stdout).toMatch(new RegExp(`${id}\\s+default\\s+revoked `));
  });

  it('fails clearly on an unknown id or tier', async () => {
    const unknown = await keys('revoke', 'key_000000000000');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no key with id "key_000000000000"');
    const tier = await keys('create', '--tier', 'gold');
    expect(tier.code).not.toBe(0);
    expect(tier.stderr).toMatch(/gold.*(default|private)/s);
    expect(tier.stdout).not.toMatch(/asum_/);
  });

  it('a key revoked by the CLI stops working in a running API on its next request', async () => {
    const created = await keys('create');
    const key = lastLine(created.stdout);
    const id = /Created key (key_[0-9a-f]{12})/.exec(created.stdout)?.[1] ?? '';
    const reader = new KeyCache(path.join(dir, 'keys.sqlite'));
    try {
      const app = createApp({
        chains: new Map([
          ['LTC', { params: chainParams('LTC', 'mainnet'), configured: true, acquire: () => ({ ok: true, source: new FakeIndex() }) }],
        ]),
        keys: reader,
        settings: {
          allowAnonymous: false,
          syncLagBlocks: 3,
          trustProxyHops: 0,
          tiers: { default: { rate: 5, burst: 10 }, private: { rate: 50, burst: 100 } },
        },
        logger: pino({ level: 'silent' }),
      });
      const url = '/api/v1/LTC/address/ltc1qhy65nwu5qusrtf4r6ahr4p2mahqz29g6vlkasz';
      const caller = new Caller(app);
      expect((await caller.send('GET', url, { 'x-api-key': key })).status).toBe(200);
      expect((await keys('revoke', id)).code).toBe(0);
      expect((await caller.send('GET', url, { 'x-api-key': key })).status).toBe(401);
      expect(caller.problems).toEqual([]);
    } finally {
      reader.close();
    }
  });
});
