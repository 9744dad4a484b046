import { expect } from 'vitest';
import { StoreError } from '../../src/store/errors.js';

/** Runs `fn`, which must throw a StoreError with `code`; returns it for further checks. */
export function expectStoreError(fn: () => unknown, code: string): StoreError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe(code);
    return err as StoreError;
  }
  throw new Error(`expected StoreError ${code}, nothing thrown`);
}
