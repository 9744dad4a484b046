/**
 * The layers of the house (docs/architecture.md), checked on every `npm run lint`. Data flows one way:
 * node → indexer/ → src/chain → src/store → SQLite → src/serving → a door (src/api, src/electrum) → client,
 * and imports follow it:
 *
 *   src/chain/                 pure: imports nothing of ours
 *   src/*.ts, src/cli/         the shared base (config, logger, coded-error, redact, build-info, …, and the
 *                              command-line plumbing): src/chain and each other
 *   src/wallet/                pure (descriptors, BIP32 derivation): the base and src/chain
 *   src/store/                 the base and src/chain: the ports and their vocabulary (the keys' in
 *                              src/store/keys/); the SQLite engine lives in src/store/sqlite/, the only
 *                              folder of the product that loads its driver, and the PostgreSQL engine in
 *                              src/store/postgres/ (node-postgres only in its pg-pool.ts, eslint.config.js)
 *   src/node/                  the node's RPC client (indexer and API): the base and src/chain
 *   src/keys/                  the addrsum-keys command: the above
 *   indexer/                   the above but src/keys
 *   src/serving/               what every door of the API process uses (chain handles, the feed tail, buckets,
 *                              coded errors, …): the above but the engines, keys and indexer; no door
 *   src/api/, src/electrum/    the API process's doors (HTTP, Electrum; any other folder of src/ is one too):
 *                              the above but the indexer (src/electrum not the engines or keys); never each other
 *   src/api-process/           the API process's root (entry point, main, wiring): all the above but the
 *                              indexer; imported by nothing outside itself
 *   addrsum-*.ts               each process's entry point, in its process's folder: imported by nothing
 *
 * Behind the ports: in the API process only src/api-process/wiring.ts, in indexer/ only main.ts (each opens the index) import
 * an engine's folder (src/store/sqlite/, src/store/postgres/), and the CLIs import only its engine.ts.
 *
 * No file of src/ or indexer/ imports tests, the harness, benchmarks or scripts, and no import circle.
 */
const OURS = '^(src|indexer)/';

/**
 * The folders of src/ that are no door: the base's, the layers below the doors (src/serving among them) and
 * the API process's root. Any other folder is a door of the API process, as src/api and src/electrum are,
 * so a new one is kept apart from them without a new rule.
 */
const NOT_DOORS = 'chain|cli|wallet|store|node|keys|serving|api-process';
const DOOR = `^src/(?!(?:${NOT_DOORS})/)([^/]+)/`;

/** A rule: files matching `from` must not import files matching `to` (except `toNot`). */
const layer = (name, comment, from, to, toNot) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from },
  to: { path: to, ...(toNot && { pathNot: toNot }) },
});

export default {
  forbidden: [
    layer('chain-is-pure', 'src/chain imports nothing of ours', '^src/chain/', OURS, '^src/chain/'),
    layer(
      'base-stays-low',
      'the shared base (src/*.ts, src/cli/) imports only src/chain and itself',
      '^src/([^/]+\\.ts$|cli/)',
      '^(src/(store|keys|api|api-process|serving|electrum|wallet)|indexer)/',
    ),
    layer(
      'wallet-is-pure',
      'src/wallet imports only src/chain and the shared base; only the API uses it',
      '^src/wallet/',
      '^(src/(store|keys|api|api-process|serving|electrum)|indexer)/',
    ),
    layer(
      'node-client-low',
      'src/node (the node client the indexer and the API share) imports only src/chain and the shared base',
      '^src/node/',
      '^(src/(store|keys|api|api-process|serving|wallet|electrum)|indexer)/',
    ),
    layer('wallet-for-the-api', 'of the layers, only src/api imports src/wallet', '^(src/(store|keys)|indexer)/', '^src/wallet/'),
    layer(
      'store-below-keys-api-indexer',
      'src/store imports only src/chain and the shared base',
      '^src/store/',
      '^(src/(keys|api|api-process|serving|electrum)|indexer)/',
    ),
    layer(
      'driver-only-in-the-engine',
      'only src/store/sqlite/ loads the SQLite driver (eslint.config.js keeps better-sqlite3 itself in its wrapper)',
      '^(src|indexer)/(?!store/sqlite/)',
      '^src/store/sqlite/sqlite-driver\\.ts$',
    ),
    {
      name: 'indexer-through-the-writer-port',
      comment:
        'the indexer drives the index through the writer port (src/store/ports.ts): only indexer/main.ts, ' +
        'which opens the index, imports the SQLite engine; a second engine then changes one file',
      severity: 'error',
      from: { path: '^indexer/', pathNot: '^indexer/main\\.ts$' },
      to: { path: '^src/store/(sqlite|postgres)/' },
    },
    {
      name: 'clis-through-the-engine',
      comment:
        'addrsum-verify and addrsum-keys speak the verifier and key-store ports: of src/store/sqlite/ they import ' +
        'only engine.ts, which opens them',
      severity: 'error',
      from: { path: '^src/(store/verify-cli|keys/cli)\\.ts$' },
      to: { path: '^src/store/(sqlite|postgres)/', pathNot: '^src/store/(sqlite|postgres)/engine\\.ts$' },
    },
    layer(
      'api-through-ports',
      // Another engine (PostgreSQL) must be a change to the wiring, not to every route: the routes, the live
      // hub and the status page see only the ports and their vocabulary.
      "src/api and src/serving read the index through the ports (src/store/ports.ts); only the API process's composition root, src/api-process/wiring.ts, knows the engines",
      '^src/(api/|serving/|api-process/(?!wiring\\.ts$))',
      '^src/store/(sqlite|postgres)/',
    ),
    {
      name: 'doors-apart',
      comment:
        'a door of the API process (src/api, src/electrum, any folder of src/ beside them) never imports another, ' +
        'not even its types: what two doors share lives in src/serving',
      severity: 'error',
      from: { path: DOOR },
      to: { path: DOOR.replace('([^/]+)', '[^/]+'), pathNot: '^src/$1/' },
    },
    layer(
      'serving-below-the-doors',
      'src/serving (what every door uses) imports no door, no process root, neither src/keys nor the indexer',
      '^src/serving/',
      `^(src/(?!(?:chain|cli|wallet|store|node|serving)/)[^/]+/|indexer/)`,
    ),
    layer(
      'process-root-on-top',
      "src/api-process/ (the API process's root: entry point, main, wiring) is imported only from within itself",
      '^(src/(?!api-process/)|indexer/)',
      '^src/api-process/',
    ),
    layer(
      'keys-below-api-indexer',
      'src/keys never imports the API or the indexer',
      '^src/keys/',
      '^(src/(api|api-process|serving|electrum)|indexer)/',
    ),
    layer(
      'electrum-through-ports',
      "src/electrum (the API process's Electrum server) reads the index through the ports, never an engine, the indexer or the keys",
      '^src/electrum/',
      '^(indexer|src/keys|src/store/(sqlite|postgres))/',
    ),
    layer('indexer-not-electrum', 'the indexer never imports the Electrum server', '^indexer/', '^src/electrum/'),
    layer('api-not-indexer', 'the API process and indexer/ never import each other', '^src/(api|api-process)/', '^indexer/'),
    layer(
      'indexer-not-api-keys',
      'the API process and indexer/ never import each other; the indexer has no keys',
      '^indexer/',
      '^src/(api|api-process|serving|keys)/',
    ),
    layer(
      'entry-points-on-top',
      'an addrsum-* entry point runs its process when imported: nothing imports one',
      '',
      '(^|/)addrsum-[^/]+\\.ts$',
    ),
    layer('no-test-code', 'the product never imports tests, the harness, benchmarks or scripts', OURS, '^(test|harness|bench|scripts)/'),
    {
      name: 'no-circular',
      comment: 'no import circle (type-only imports count: a circle of types is still two files that know each other)',
      severity: 'error',
      from: { path: OURS },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
