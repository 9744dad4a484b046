/**
 * config/alerts.yml: valid rules, wired into config/prometheus.yml, and `promtool test rules` passing a
 * firing and a not-firing case for every alert. promtool comes from Debian's `prometheus` package,
 * which scripts/ensure-deps.sh (npm test's pretest) installs; without it these tests fail, saying how to get it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { IndexerMetrics } from '../../indexer/metrics.js';
import { createApiMetrics } from '../../src/api/metrics.js';
import { REPO_ROOT } from '../../harness/indexer-process.js';

const havePromtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' }).status === 0;

function promtool(...args: string[]): string {
  return execFileSync('promtool', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

interface RulesFile {
  groups: Array<{ rules: Array<{ alert?: string }> }>;
}
interface RulesTest {
  rule_files: string[];
  tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
}

const alerts = (parse(readFileSync(path.join(REPO_ROOT, 'config/alerts.yml'), 'utf8')) as RulesFile).groups
  .flatMap((g) => g.rules)
  .map((r) => r.alert)
  .filter((a): a is string => a !== undefined);
const TEST_FILE = 'test/fixtures/prometheus/alerts.test.yml';
const cases = (parse(readFileSync(path.join(REPO_ROOT, TEST_FILE), 'utf8')) as RulesTest).tests.flatMap((t) => t.alert_rule_test ?? []);

describe('alert rules', () => {
  it("covers the issue's list and has a firing and a not-firing case for every alert", () => {
    expect(alerts).toEqual(
      expect.arrayContaining([
        'AddrsumIndexStale',
        'AddrsumNodeUnreachable',
        'AddrsumIndexLagging',
        'AddrsumApi5xxRate',
        'AddrsumApi429Rate',
        'AddrsumTipTooOld',
        'AddrsumApi503Sustained',
      ]),
    );
    for (const alert of alerts) {
      const mine = cases.filter((c) => c.alertname === alert);
      expect(
        mine.some((c) => c.exp_alerts.length > 0),
        `${alert} has a firing case`,
      ).toBe(true);
      expect(
        mine.some((c) => c.exp_alerts.length === 0),
        `${alert} has a not-firing case`,
      ).toBe(true);
    }
  });

  it('is loaded by config/prometheus.yml', () => {
    const prom = parse(readFileSync(path.join(REPO_ROOT, 'config/prometheus.yml'), 'utf8')) as { rule_files?: string[] };
    expect(prom.rule_files).toEqual(['alerts.yml']);
  });

  it('passes promtool check rules, check config and test rules', () => {
    expect(havePromtool, 'promtool is missing: run scripts/ensure-deps.sh as root, or apt-get install prometheus').toBe(true);
    expect(promtool('check', 'rules', 'config/alerts.yml')).toContain(`SUCCESS: ${alerts.length} rules found`);
    expect(promtool('check', 'config', 'config/prometheus.yml')).toContain('SUCCESS');
    expect(promtool('test', 'rules', TEST_FILE)).toContain('SUCCESS');
  });
});

describe('monitoring files name only metrics the code exports', () => {
  const exported = new Set([
    ...createApiMetrics({ defaultMetrics: true })
      .registry.getMetricsAsArray()
      .map((m) => (m as unknown as { name: string }).name),
    ...new IndexerMetrics('LTC', true).registry.getMetricsAsArray().map((m) => (m as unknown as { name: string }).name),
  ]);
  const used = (text: string) => [
    ...new Set([...text.matchAll(/addrsum_[a-z0-9_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, ''))),
  ];

  it('config/alerts.yml', () => {
    const names = used(readFileSync(path.join(REPO_ROOT, 'config/alerts.yml'), 'utf8'));
    expect(names.length).toBeGreaterThan(5);
    expect(names.filter((n) => !exported.has(n))).toEqual([]);
  });

  it('config/grafana/addrsum.json: valid dashboard JSON whose queries use exported metrics', () => {
    const dashboard = JSON.parse(readFileSync(path.join(REPO_ROOT, 'config/grafana/addrsum.json'), 'utf8')) as {
      title: string;
      uid: string;
      panels: Array<{ id: number; title: string; targets: Array<{ expr: string }> }>;
    };
    expect(dashboard.uid).toBe('addrsum-overview');
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
    const names = used(exprs.join('\n'));
    expect(names.filter((n) => !exported.has(n))).toEqual([]);
    for (const wanted of [
      'addrsum_build_info',
      'addrsum_api_chain_ready',
      'addrsum_indexer_node_last_seen_timestamp_seconds',
      'addrsum_indexer_tip_block_timestamp_seconds',
      'addrsum_indexer_node_retries_total',
      'addrsum_indexer_block_apply_seconds',
      'addrsum_indexer_reorgs_total',
      'addrsum_indexer_process_resident_memory_bytes',
      'addrsum_api_process_resident_memory_bytes',
    ]) {
      expect(names).toContain(wanted);
    }
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    // "Since the node last answered" shows only that: the tip's age is a different question.
    const lastAnswered = dashboard.panels.find((p) => p.title.startsWith('Since the node last answered'));
    expect(used(lastAnswered!.targets.map((t) => t.expr).join('\n'))).toEqual(['addrsum_indexer_node_last_seen_timestamp_seconds']);
    expect(exprs.some((e) => e.includes('route="/api/v1/:chain/addresses"'))).toBe(true);
  });
});
