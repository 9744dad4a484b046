/**
 * Log formats: JSON lines by default (for collectors), readable lines with ADDRSUM_LOG_FORMAT=pretty
 * (for a terminal). Both go through the same redaction. Lines are captured from the destination stream.
 */
import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger, resolvedFormat, unredacted, type LoggerOptions } from '../../src/logger.js';

/** A destination stream that keeps what it is given (pino-pretty needs a real stream, not just write()). */
function capture() {
  const writes: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      writes.push(chunk.toString());
      done();
    },
  });
  return { writes, destination };
}

function logSome(options: Omit<LoggerOptions, 'destination'>): string {
  const { writes, destination } = capture();
  const log = createLogger({ ...options, destination }).child({ chain: 'LTC', component: 'indexer' });
  log.info({ height: 2_700_001, hash: 'ab'.repeat(32), txs: 42, ms: 87 }, 'new tip 2700001');
  log.warn({ rpcUrl: 'http://addrsum:hunter2@127.0.0.1:9332', attempt: 3 }, 'node unreachable');
  log.debug('not at info level');
  return writes.join('');
}

describe('log format', () => {
  it('json (the default): one JSON object per line with level, time, service and fields', () => {
    const lines = logSome({ level: 'info' }).trim().split('\n');
    expect(lines).toHaveLength(2);
    const [tip, warn] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(tip).toMatchObject({
      level: 'info',
      service: 'addrsum',
      chain: 'LTC',
      component: 'indexer',
      height: 2_700_001,
      txs: 42,
      ms: 87,
      msg: 'new tip 2700001',
    });
    expect(typeof tip?.time).toBe('string');
    expect(warn).toMatchObject({ level: 'warn', rpcUrl: '[redacted]', attempt: 3 });
    expect(logSome({ level: 'info', format: 'json' })).toMatch(/^\{"level":"info"/);
  });

  it('pretty: one readable line per record, chain and component first, the same redaction', () => {
    const text = logSome({ level: 'info', format: 'pretty' });
    const lines = text.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] INFO: LTC indexer: new tip 2700001 \{"height":2700001,"hash":"(ab){32}","txs":42,"ms":87\}$/,
    );
    expect(lines[1]).toMatch(/^\[[^\]]+\] WARN: LTC indexer: node unreachable \{"rpcUrl":"\[redacted\]","attempt":3\}$/);
    expect(text).not.toContain('hunter2');
    // No colour codes when the destination is not a terminal.
    expect(text).not.toContain('\u001b[');
  });

  it('is chosen by ADDRSUM_LOG_FORMAT in a real process, writing to stdout', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const script = [
      "import { loadConfig } from './src/config.ts';",
      "import { createLogger } from './src/logger.ts';",
      'const c = loadConfig();',
      "createLogger({ level: c.logLevel, format: c.logFormat }).info({ height: 7 }, 'caught up at 7');",
    ].join('\n');
    const run = (format: string) =>
      spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: root,
        env: { ...process.env, ADDRSUM_LOG_FORMAT: format },
        encoding: 'utf8',
        timeout: 60_000,
      });
    const pretty = run('pretty');
    expect(pretty.status, pretty.stderr).toBe(0);
    expect(pretty.stdout).toMatch(/^\[[^\]]+\] INFO: caught up at 7 \{"height":7\}\n$/);
    const json = run('json');
    expect(JSON.parse(json.stdout)).toMatchObject({ level: 'info', height: 7, msg: 'caught up at 7' });
    // The default, auto: stdout here is a pipe, so JSON.
    expect(loadConfig({ env: {} }).logFormat).toBe('auto');
    const auto = run('');
    expect(auto.status, auto.stderr).toBe(0);
    expect(JSON.parse(auto.stdout)).toMatchObject({ level: 'info', height: 7, msg: 'caught up at 7' });
  });

  it('auto is pretty at a terminal and JSON elsewhere; an explicit format wins', () => {
    expect(resolvedFormat('auto', true)).toBe('pretty');
    expect(resolvedFormat('auto', false)).toBe('json');
    expect(resolvedFormat('json', true)).toBe('json');
    expect(resolvedFormat('pretty', false)).toBe('pretty');
  });

  it('writes service once on the unredacted request lines', () => {
    const { writes, destination } = capture();
    const log = createLogger({ level: 'info', destination }).child({ component: 'http' });
    unredacted(log).info({ route: '/health' }, 'request');
    expect(writes).toHaveLength(1);
    expect(writes[0]!.match(/"service":/g)).toHaveLength(1);
    expect(JSON.parse(writes[0]!)).toMatchObject({ service: 'addrsum', component: 'http', route: '/health' });
  });
});
