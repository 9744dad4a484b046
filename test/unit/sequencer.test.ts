/** The suite order (test/setup/sequencer.ts): suites with their own PostgreSQL clusters never start as neighbours. */
import { describe, expect, it } from 'vitest';
import { apartFromEachOther } from '../setup/sequencer.js';

describe('apartFromEachOther', () => {
  it('keeps two picks between marked items while unmarked ones are left, and the order otherwise', () => {
    const pg = (s: string) => s.startsWith('pg');
    expect(apartFromEachOther(['pg1', 'pg2', 'a', 'b', 'c', 'pg3', 'd'], pg)).toEqual(['pg1', 'a', 'b', 'pg2', 'c', 'd', 'pg3']);
    expect(apartFromEachOther(['pg1', 'pg2', 'a'], pg)).toEqual(['pg1', 'a', 'pg2']);
    expect(apartFromEachOther(['a', 'b'], pg)).toEqual(['a', 'b']);
  });
});
