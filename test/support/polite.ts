/**
 * A real client at the anonymous default tier (5/s, burst 10) meets 429s: it waits them out and asks
 * again, as a polite client does, until a deadline. `limited` tells a refusal for pace from any other
 * failure, and how many seconds it asks to wait (null: it is no such refusal).
 */
import { setTimeout as sleep } from 'node:timers/promises';

export type Limited = (err: unknown) => number | null;

export function politely(limited: Limited, deadlineMs: number): <T>(call: () => Promise<T>) => Promise<T> {
  return async (call) => {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      try {
        return await call();
      } catch (err) {
        const wait = limited(err);
        if (wait === null || Date.now() > deadline) throw err;
        await sleep(1000 * wait);
      }
    }
  };
}

/** A refusal whose message is the 429's text (Blockbook's `{"error": "too many requests …"}`, on either door). */
export const limitedByText: Limited = (err) => (String((err as Error).message).startsWith('too many requests') ? 1 : null);
