import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const BETTER_SQLITE3 = {
  name: 'better-sqlite3',
  message: 'import it from src/store/sqlite/sqlite-driver.ts (the safe major for this Node)',
  allowTypeImports: true,
};
const PG = { name: 'pg', message: 'open connections with src/store/postgres/pg-pool.ts (bounded waits)', allowTypeImports: true };
const PG_COPY = { name: 'pg-copy-streams', message: 'COPY through src/store/postgres/pg-copy.ts', allowTypeImports: true };

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'dist/**', '.cache/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The status page's script runs in browsers, as a classic script (src/api/routes/status-page.ts).
    files: ['src/api/status-page/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: Object.fromEntries(
        [
          'document',
          'location',
          'history',
          'sessionStorage',
          'EventSource',
          'WebSocket',
          'URLSearchParams',
          'setTimeout',
          'clearTimeout',
          'fetch',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    // Small files, one concept each: a source file past 400 lines holds two things.
    files: ['src/**/*.ts', 'indexer/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 400 }] },
  },
  // One place loads the SQLite driver, in the major that is safe on the running Node; one place opens
  // PostgreSQL connections in the product, with the bounds every caller relies on (timeouts, pool size),
  // and one place streams COPY on them.
  {
    files: ['**/*.ts'],
    ignores: ['src/**', 'indexer/**'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [BETTER_SQLITE3] }] },
  },
  {
    files: ['src/**/*.ts', 'indexer/**/*.ts'],
    ignores: ['src/store/sqlite/sqlite-driver.ts', 'src/store/postgres/pg-pool.ts', 'src/store/postgres/pg-copy.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [BETTER_SQLITE3, PG, PG_COPY] }] },
  },
  {
    files: ['src/store/postgres/pg-pool.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [BETTER_SQLITE3, PG_COPY] }] },
  },
  {
    // COPY's streams, on connections pg-pool.ts opened.
    files: ['src/store/postgres/pg-copy.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [BETTER_SQLITE3, PG] }] },
  },
);
