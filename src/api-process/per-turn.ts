/**
 * A value computed at most once per event-loop turn. For the per-request checks that each cost a system
 * call (is the index file still the one we opened; has keys.sqlite changed): on this kind of machine a
 * system call costs microseconds, and under load one turn of the loop reads many requests.
 *
 * Why a change is still seen by the next request: a turn starts by asking the kernel which sockets are
 * readable; a request that was sent after a change had completed (a key revoked, an index deleted) is
 * not yet in that answer, so it is read in a later turn, which checks again. The value is forgotten in
 * the turn's check phase (setImmediate), right after the I/O callbacks that shared it. That argument
 * holds for values asked for from I/O callbacks (answering requests), the only callers: one asked for
 * from a timer or a setImmediate callback would be kept into the next wait for sockets.
 */
export interface PerTurn<T> {
  get(): T;
  /** Drops the value now: the next get() computes it again (after a change made by this very turn). */
  forget(): void;
}

export function perTurn<T>(compute: () => T): PerTurn<T> {
  let held: { value: T } | null = null;
  const forget = (): void => {
    held = null;
  };
  return {
    get: () => {
      if (held === null) {
        held = { value: compute() };
        setImmediate(forget);
      }
      return held.value;
    },
    forget,
  };
}
