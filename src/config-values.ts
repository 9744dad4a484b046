/**
 * The value schemas settings are built from (config.ts, config-electrum.ts): one message for every way
 * of getting a value wrong, the same wherever the setting lives.
 */
import { z } from 'zod';

/** An integer in [min, max]; one message for every way of getting it wrong. */
export function int(min: number, max: number) {
  const error = `expected an integer from ${min} to ${max}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}
export const port = () => int(0, 65535);
/** TOML has real booleans; environment variables are text and go through z.stringbool(). */
export const bool = () => z.union([z.boolean(), z.stringbool()], { error: 'expected true or false (also 1/0, yes/no, on/off)' });
export const text = (what: string) => z.string({ error: `expected ${what}` }).min(1, { error: `expected ${what}` });
