/** The dropping log writer: a destination that fails loses lines, counted, reported once a minute, never thrown. */
import { openSync, closeSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DroppingWriter, logLinesDropped } from '../../src/log-writer.js';

describe('DroppingWriter', () => {
  it('drops and counts lines the destination refuses (ENOSPC), with one report per minute', async () => {
    const fd = openSync('/dev/full', 'w');
    const reports: string[] = [];
    let now = 0;
    const writer = new DroppingWriter({ fd, report: (l) => reports.push(l), now: () => now });
    const before = logLinesDropped();
    try {
      for (let i = 0; i < 5; i++) writer.write(`{"n":${i}}\n`);
      await new Promise<void>((resolve) => writer.flush(resolve));
      writer.write('{"n":5}\n');
      writer.flushSync();
      now = 61_000;
      writer.write('{"n":6}\n');
      await new Promise<void>((resolve) => writer.flush(resolve));
    } finally {
      closeSync(fd);
    }
    expect(writer.dropped).toBe(7);
    expect(logLinesDropped() - before).toBe(7);
    expect(reports).toHaveLength(2);
    expect(reports[0]).toMatch(/dropped \d+ log line\(s\).*ENOSPC/);
  });

  it('drops new lines past its queue bound instead of growing without end', () => {
    const writer = new DroppingWriter({ fd: 1, maxQueuedBytes: 10, report: () => undefined });
    writer.write('0123456789\n');
    writer.write('0123456789\n');
    expect(writer.dropped).toBe(2);
  });
});
