import { defineConfig } from 'vitest/config';
import HeaviestFirst from './test/setup/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/fast-check.ts'],
    sequence: { sequencer: HeaviestFirst },
    // Integration suites start real litecoind nodes; two at a time is what a 2-core machine bears.
    maxWorkers: 2,
    // A deadline against hangs, not a speed check: the heavier correctness tests take several times
    // longer on a shared 2-core machine under load, and a slow pass must not read as a failure.
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
