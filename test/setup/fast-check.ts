import fc from 'fast-check';

// Property tests explore new random cases on every local run; CI (CI=true) replays one fixed seed so a
// landing is never decided by luck. FC_SEED reproduces a failure reported with its seed.
const seed = process.env.FC_SEED ?? (process.env.CI === 'true' ? '20261123' : undefined);
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) });
