/** The suite order (test/setup/sequencer.ts): suites with their own PostgreSQL clusters never start as neighbours. */
import { describe, expect, it } from 'vitest';
import { apartFromEachOther, PICKS_APART } from '../setup/sequencer.js';

describe('apartFromEachOther', () => {
  it('keeps four picks between marked items while unmarked ones are left, and the order otherwise', () => {
    const pg = (s: string) => s.startsWith('pg');
    expect(PICKS_APART).toBe(4);
    expect(apartFromEachOther(['pg1', 'pg2', 'a', 'b', 'c', 'd', 'e', 'pg3', 'f'], pg)).toEqual([
      'pg1',
      'a',
      'b',
      'c',
      'd',
      'pg2',
      'e',
      'f',
      'pg3',
    ]);
    expect(apartFromEachOther(['pg1', 'pg2', 'a'], pg)).toEqual(['pg1', 'a', 'pg2']);
    expect(apartFromEachOther(['a', 'b'], pg)).toEqual(['a', 'b']);
  });
});
