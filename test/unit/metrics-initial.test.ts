/** Refusal counters exist at 0 from the first scrape, for every label value they can take. */
import { describe, expect, it } from 'vitest';
import { IndexerMetrics } from '../../indexer/metrics.js';
import { createApiMetrics } from '../../src/api/metrics.js';

describe('metrics before any event', () => {
  it('API: auth failures, 429s and sampled log lines are 0 per known label value', async () => {
    const text = await createApiMetrics().registry.metrics();
    for (const reason of ['missing', 'malformed', 'unknown', 'revoked']) {
      expect(text).toContain(`addrsum_api_auth_failures_total{reason="${reason}"} 0`);
    }
    for (const tier of ['default', 'private', 'invalid_key']) expect(text).toContain(`addrsum_api_rate_limited_total{tier="${tier}"} 0`);
    for (const status of ['401', '429']) expect(text).toContain(`addrsum_api_log_lines_suppressed_total{status="${status}"} 0`);
  });

  it('process metrics carry their process prefix: addrsum_api_… and addrsum_indexer_…', async () => {
    const api = await createApiMetrics({ defaultMetrics: true }).registry.metrics();
    const indexer = await new IndexerMetrics('LTC', true).registry.metrics();
    expect(api).toMatch(/^addrsum_api_process_cpu_seconds_total /m);
    expect(indexer).toMatch(/^addrsum_indexer_process_cpu_seconds_total\{chain="LTC"\} /m);
    expect(indexer).not.toMatch(/^process_/m);
  });
});
