/** The time every door and the serving layer read, behind an interface so a test's clock can stand in. */
export interface Clock {
  /** Milliseconds since the epoch (Date.now); fakes move it by hand. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
