/**
 * The Electrum server's log of connections closed for a cause (src/electrum/cause-log.ts): at most one
 * line per reason per client network per minute, and one summary of what was left out once the minute
 * has passed; other reasons and networks have their own allowance.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { CauseLog } from '../../src/electrum/cause-log.js';

function capture(): { lines: Array<Record<string, unknown>>; log: CauseLog; at: { now: number } } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const at = { now: 1_000_000 };
  return { lines, log: new CauseLog(logger, () => at.now), at };
}

describe('CauseLog', () => {
  it('writes one line per reason and network per minute, then a summary of the rest', () => {
    const { lines, log, at } = capture();
    for (let i = 0; i < 50; i++) log.report('bad_lines', '10.0.0.1');
    log.report('bad_lines', '10.0.0.2');
    log.report('slow_reader', '10.0.0.1');
    expect(lines.map((l) => [l.reason, l.network, l.msg])).toEqual([
      ['bad_lines', '10.0.0.1', 'electrum: connection closed (bad_lines)'],
      ['bad_lines', '10.0.0.2', 'electrum: connection closed (bad_lines)'],
      ['slow_reader', '10.0.0.1', 'electrum: connection closed (slow_reader)'],
    ]);
    at.now += 60_000;
    log.report('idle', '10.0.0.3');
    expect(lines.slice(3).map((l) => [l.reason, l.network, l.more ?? null])).toEqual([
      ['bad_lines', '10.0.0.1', 49],
      ['idle', '10.0.0.3', null],
    ]);
    log.report('bad_lines', '10.0.0.1');
    expect(lines).toHaveLength(6);
  });
});
