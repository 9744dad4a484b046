/** Limit tiers. `private` is what dashboard keys get; `default` is for anonymous callers and low-limit keys. */
export const TIER_NAMES = Object.freeze(['default', 'private'] as const);
export type Tier = (typeof TIER_NAMES)[number];

export function isTier(value: unknown): value is Tier {
  return typeof value === 'string' && (TIER_NAMES as readonly string[]).includes(value);
}
