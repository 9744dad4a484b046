/**
 * The Electrum cost meter (src/electrum/cost-meter.ts) on a clock of the test's own: served at once under
 * the soft limit, held until the level drains back to it (with the bound) above it, closed past the hard
 * limit; one level per network shared by its sessions; trusted networks not metered. Then the defaults
 * of config/default.toml against the requests of a 1,000-address wallet's first sync, as Electrum 4.3.4
 * makes them, back to back: not one waits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { admission, CostLevel, CostMeters, type Admission, type CostSettings } from '../../src/electrum/cost-meter.js';
import { loadConfig } from '../../src/config.js';

const SMALL: CostSettings = {
  session: { soft: 10, hard: 100, decayPerSecond: 10 },
  network: { soft: 30, hard: 300, decayPerSecond: 20 },
  maxDelayMs: 2000,
  trusted: ['127.0.0.1', '::1'],
};

const meters: CostMeters[] = [];
afterEach(() => meters.splice(0).forEach((m) => m.close()));

function metersAt(settings: CostSettings, clock: { t: number }): CostMeters {
  const m = new CostMeters(settings, () => clock.t);
  meters.push(m);
  return m;
}

const delay = (a: Admission): number => (a.kind === 'serve' ? a.delayMs : Number.NaN);

describe('cost level', () => {
  it('drains at its rate and never below zero', () => {
    const level = new CostLevel({ soft: 10, hard: 100, decayPerSecond: 10 });
    expect(level.add(25, 0)).toBe(25);
    expect(level.at(1000)).toBe(15);
    expect(level.at(10_000)).toBe(0);
    expect(level.add(1, 10_000)).toBe(1);
  });
});

describe('admission', () => {
  const limits = { soft: 10, hard: 100, decayPerSecond: 10 };
  it('serves at once up to the soft limit, then waits what draining back to it takes, at most the bound', () => {
    expect(admission([{ level: 10, limits, scope: 'session' }], 2000)).toEqual({ kind: 'serve', delayMs: 0 });
    expect(admission([{ level: 15, limits, scope: 'session' }], 2000)).toEqual({ kind: 'serve', delayMs: 500 });
    expect(admission([{ level: 90, limits, scope: 'session' }], 2000)).toEqual({ kind: 'serve', delayMs: 2000 });
  });

  it('takes the longest wait of the levels, and the first hard limit passed', () => {
    const wide = { soft: 10, hard: 1000, decayPerSecond: 100 };
    const both = [
      { level: 12, limits, scope: 'session' },
      { level: 60, limits: wide, scope: 'network' },
    ];
    expect(admission(both, 2000)).toEqual({ kind: 'serve', delayMs: 500 });
    const over = admission(
      [
        { level: 12, limits, scope: 'session' },
        { level: 1001, limits: wide, scope: 'network' },
      ],
      2000,
    );
    expect(over).toEqual({ kind: 'over', why: "the network's cost 1001 passed its hard limit 1000" });
  });
});

describe('cost meters', () => {
  it('meters a session, paces it above the soft limit and closes it past the hard one', () => {
    const clock = { t: 0 };
    const meter = metersAt(SMALL, clock).meterFor('10.0.0.1', '10.0.0.1');
    for (let i = 0; i < 10; i++) expect(delay(meter.admit(1))).toBe(0);
    expect(delay(meter.admit(1))).toBe(100);
    // A second later, 10 has drained: one more is served at once.
    clock.t = 1000;
    expect(delay(meter.admit(1))).toBe(0);
    expect(meter.admit(99)).toEqual({ kind: 'over', why: "the session's cost 101 passed its hard limit 100" });
  });

  it('shares one level among the sessions of a network, and keeps it when they close', () => {
    const clock = { t: 0 };
    const m = metersAt(SMALL, clock);
    const first = m.meterFor('10.0.0.2', '10.0.0.2');
    const second = m.meterFor('10.0.0.2', '10.0.0.2');
    const elsewhere = m.meterFor('10.0.0.3', '10.0.0.3');
    expect(delay(first.admit(10))).toBe(0);
    expect(delay(second.admit(10))).toBe(0);
    expect(delay(m.meterFor('10.0.0.2', '10.0.0.2').admit(10))).toBe(0);
    // No session is over its soft limit (10), but the network (soft 30) is: 5 over, drained at 20/s.
    expect(delay(m.meterFor('10.0.0.2', '10.0.0.2').admit(5))).toBe(250);
    expect(delay(elsewhere.admit(10))).toBe(0);
  });

  it('drops a level once drained, and a session of it goes on on a new one', () => {
    const clock = { t: 0 };
    const m = metersAt(SMALL, clock);
    const meter = m.meterFor('10.0.0.4', '10.0.0.4');
    meter.admit(5);
    m.sweep();
    expect(m.size).toBe(1);
    clock.t = 10_000;
    m.sweep();
    expect(m.size).toBe(0);
    meter.admit(40);
    expect(m.size).toBe(1);
    // The network's new level holds the session's spending: a second session now waits for it.
    expect(delay(m.meterFor('10.0.0.4', '10.0.0.4').admit(1))).toBe(550);
  });

  it('does not meter trusted networks, IPv4 seen as IPv6 included', () => {
    const m = metersAt(SMALL, { t: 0 });
    for (const ip of ['127.0.0.1', '::ffff:127.0.0.1', '::1']) {
      const meter = m.meterFor(ip, ip);
      for (let i = 0; i < 100; i++) expect(meter.admit(1000)).toEqual({ kind: 'serve', delayMs: 0 });
    }
    expect(m.size).toBe(0);
    expect(delay(m.meterFor('127.0.0.2', '127.0.0.2').admit(11))).toBe(100);
  });
});

describe('the defaults and a 1,000-address wallet', () => {
  it('let its first sync through without one wait, from an untrusted network', () => {
    const { electrum: e } = loadConfig({ env: {} });
    const settings: CostSettings = {
      session: { soft: e.costSoftLimit, hard: e.costHardLimit, decayPerSecond: e.costDecayPerSecond },
      network: { soft: e.networkCostSoftLimit, hard: e.networkCostHardLimit, decayPerSecond: e.networkCostDecayPerSecond },
      maxDelayMs: e.maxDelayMs,
      trusted: e.trustedNetworks,
    };
    const clock = { t: 0 };
    const meter = metersAt(settings, clock).meterFor('203.0.113.7', '203.0.113.7');
    // The costs the methods are priced at (src/electrum/methods): version and features 0.1, headers 0.5,
    // a script's subscribe and get_history 1 each, transaction.get and get_merkle 1 each (node lookups).
    const requests: number[] = [0.1, 0.1, 0.5];
    for (let i = 0; i < 1000; i++) requests.push(1); // subscribe
    for (let i = 0; i < 1000; i++) requests.push(1); // get_history: every address has a history
    for (let i = 0; i < 3000; i++) requests.push(1, 1); // each transaction (3 per address): get, get_merkle
    let waited = 0;
    for (const cost of requests) {
      const a = meter.admit(cost);
      expect(a.kind).toBe('serve');
      waited += delay(a);
      // Back to back, as fast as the wallet can ask: 0.2 ms a request.
      clock.t += 0.2;
    }
    // The whole sync fits under the soft limits: not one request waits.
    expect(waited).toBe(0);
    expect(requests.length).toBeGreaterThan(8000);
  });
});
