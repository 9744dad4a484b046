/**
 * The Dockerfile without a Docker engine: its stages and commands are read as the builder reads them
 * (test/support/dockerfile-model.ts) and checked against what a production image needs — a build stage
 * that compiles, a runtime stage with production dependencies only, plain `node` on dist/ as a non-root
 * user, a health check, a supported Node LTS base, and COPY sources that exist in the build context.
 * Every check also runs against a copy broken on purpose, to prove it can fail.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { entryProblems } from '../support/compose-checks.js';
import {
  commandArgv,
  compiledFrom,
  contextMatches,
  copiesOf,
  inContext,
  parseInstructions,
  parseStages,
  type Stage,
} from '../support/dockerfile-model.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(`${ROOT}${file}`, 'utf8');
const DOCKERFILE = read('Dockerfile');
const DOCKERIGNORE = read('.dockerignore').split('\n');
const PACKAGE = JSON.parse(read('package.json')) as { scripts?: Record<string, string> };

/** Node majors with even numbers become LTS; 24 is the oldest line still supported (20 ended April 2026). */
const OLDEST_SUPPORTED_LTS = 24;

const runs = (stage: Stage) => stage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
const last = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword).at(-1);

/** Every problem with a Dockerfile's text, one line each (empty = fine). */
function dockerfileProblems(text: string, root = ROOT, ignore = DOCKERIGNORE): string[] {
  const problems: string[] = [];
  const stages = parseStages(text);
  const runtime = stages.at(-1);
  if (stages.length < 2 || runtime === undefined) return ['not multi-stage: expected a build stage and a runtime stage'];

  for (const stage of stages) {
    if (stages.some((s) => s.name === stage.from)) continue; // FROM an earlier stage
    const m = /^node:(\d+)(?:[.-][^@]*)?(?:@sha256:[0-9a-f]{64})?$/.exec(stage.from);
    const major = m ? Number(m[1]) : NaN;
    if (!m) problems.push(`stage ${stage.name}: FROM ${stage.from} is not an official node image pinned to a major version`);
    else if (major < OLDEST_SUPPORTED_LTS || major % 2 !== 0)
      problems.push(
        `stage ${stage.name}: FROM ${stage.from}: Node ${major} is not a supported LTS line (${OLDEST_SUPPORTED_LTS} or a later even major)`,
      );
  }

  const build = stages.find((s) => runs(s).some((r) => /\bnpm run build\b/.test(r)));
  if (build === undefined || build === runtime) problems.push('no build stage before the runtime stage runs `npm run build`');
  else if (!runs(build).some((r) => /\bnpm ci\b/.test(r) && !/--omit=dev/.test(r)))
    problems.push(`stage ${build.name}: npm run build without the dev dependencies (npm ci, no --omit=dev)`);
  if (!/\btsc\b/.test(PACKAGE.scripts?.build ?? '')) problems.push('package.json: scripts.build does not compile with tsc');

  const installs = runs(runtime).filter((r) => /\bnpm (ci|install|i)\b/.test(r));
  if (!installs.some((r) => /\bnpm ci\b[^&;]*--omit=dev/.test(r)))
    problems.push(`stage ${runtime.name}: no \`npm ci --omit=dev\` (production dependencies only)`);
  if (installs.some((r) => /\bnpm (ci|install|i)\b(?![^&;]*--omit=dev)/.test(r)))
    problems.push(`stage ${runtime.name}: an npm install with dev dependencies`);
  if (installs.some((r) => /--ignore-scripts/.test(r)))
    problems.push(`stage ${runtime.name}: npm ci --ignore-scripts leaves the native modules unbuilt`);
  const copies = copiesOf(runtime);
  if (copies.some((c) => c.from !== undefined && c.sources.some((src) => /node_modules/.test(src))))
    problems.push(`stage ${runtime.name}: copies node_modules from another stage (dev dependencies and a toolchain would come along)`);
  if (!copies.some((c) => c.from === build?.name && c.sources.some((src) => /\/dist\/?$/.test(src))))
    problems.push(`stage ${runtime.name}: does not copy dist/ from the build stage`);
  for (const needed of ['package.json', 'config', 'migrations']) {
    if (!copies.some((c) => c.from === undefined && c.sources.some((src) => src.replace(/\/$/, '') === needed)))
      problems.push(`stage ${runtime.name}: does not copy ${needed} (found relative to the package root)`);
  }
  if (runtime.instructions.some((i) => /\btsx\b/.test(i.args))) problems.push(`stage ${runtime.name}: mentions tsx, a dev dependency`);

  const cmd = last(runtime, 'CMD');
  const user = last(runtime, 'USER');
  if (user === undefined || /^(root|0)(:|$)/.test(user.args)) problems.push(`stage ${runtime.name}: runs as ${user?.args ?? 'root'}`);
  if (cmd === undefined) problems.push(`stage ${runtime.name}: no CMD`);
  else {
    if (user !== undefined && user.line > cmd.line) problems.push(`stage ${runtime.name}: USER comes after CMD`);
    const argv = commandArgv(cmd.args);
    if (argv[0] !== 'node' || argv[1] === undefined || compiledFrom(argv[1]) === undefined)
      problems.push(`CMD ${cmd.args} does not run \`node dist/….js\` in exec form`);
    else problems.push(...entryProblems('CMD', argv, text, root));
  }
  const health = last(runtime, 'HEALTHCHECK');
  if (health === undefined) problems.push(`stage ${runtime.name}: no HEALTHCHECK`);
  else {
    const probe = health.args.replace(/^(--\S+\s+)*CMD\s+/, '');
    const argv = commandArgv(probe);
    if (argv[0] !== 'node' || !argv.join(' ').includes('/health'))
      problems.push(`HEALTHCHECK ${health.args} does not probe /health with node (slim images have no curl)`);
  }

  for (const stage of stages) {
    for (const copy of copiesOf(stage).filter((c) => c.from === undefined)) {
      for (const src of copy.sources) {
        const matches = contextMatches(root, src);
        if (matches.length === 0) problems.push(`line ${copy.line}: COPY ${src}: no such file in the repository`);
        else if (!matches.some((m) => inContext(ignore, m))) problems.push(`line ${copy.line}: COPY ${src}: excluded by .dockerignore`);
      }
    }
  }
  for (const ins of parseInstructions(text).filter((i) => i.keyword === 'RUN' && /apt-get install/.test(i.args))) {
    if (!/--no-install-recommends/.test(ins.args) || !/rm -rf \/var\/lib\/apt\/lists/.test(ins.args))
      problems.push(`line ${ins.line}: apt-get install without --no-install-recommends and list cleanup in the same RUN`);
  }
  return problems;
}

describe('Dockerfile', () => {
  it('builds in one stage and runs `node dist/…` with production dependencies in another', () => {
    expect(dockerfileProblems(DOCKERFILE)).toEqual([]);
  });

  it('is read as the builder reads it: continuations joined, comments skipped, stages named', () => {
    const stages = parseStages(DOCKERFILE);
    expect(stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    const install = runs(stages[1] as Stage).find((r) => r.includes('--omit=dev'));
    expect(install).toMatch(/apt-get install .* && npm ci --omit=dev .* && apt-get purge/);
    expect(commandArgv('["node", "x.js"]')).toEqual(['node', 'x.js']);
    expect(commandArgv('node x.js')).toEqual(['/bin/sh', '-c', 'node x.js']);
    expect(compiledFrom('dist/src/api/addrsum-api.js')).toBe('src/api/addrsum-api.ts');
    expect(compiledFrom('src/api/addrsum-api.ts')).toBeUndefined();
    expect(inContext(['test', '*.sqlite'], 'test/x.ts')).toBe(false);
    expect(inContext(['test', '*.sqlite'], 'src/a.sqlite')).toBe(true);
  });
});

const replaceLine = (pattern: RegExp, by: string) => DOCKERFILE.replace(pattern, by);
const BROKEN: Array<[string, string, RegExp]> = [
  ['one stage only', DOCKERFILE.replace(/^FROM node:\S+ AS runtime$/m, ''), /not multi-stage/],
  ['Node 20 (end of life)', DOCKERFILE.replaceAll('node:24-bookworm-slim', 'node:20-bookworm-slim'), /Node 20 is not a supported LTS line/],
  [
    'an odd (non-LTS) major',
    DOCKERFILE.replaceAll('node:24-bookworm-slim', 'node:25-bookworm-slim'),
    /Node 25 is not a supported LTS line/,
  ],
  [
    'an unpinned base',
    DOCKERFILE.replaceAll('node:24-bookworm-slim', 'node:lts-slim'),
    /FROM node:lts-slim is not an official node image pinned/,
  ],
  ['dev dependencies at run time', DOCKERFILE.replace('npm ci --omit=dev', 'npm ci'), /no `npm ci --omit=dev`/],
  [
    'node_modules copied from the build stage',
    replaceLine(
      /^COPY --from=build \/app\/dist .*$/m,
      'COPY --from=build /app/dist ./dist\nCOPY --from=build /app/node_modules ./node_modules',
    ),
    /copies node_modules from another stage/,
  ],
  ['no dist from the build stage', replaceLine(/^COPY --from=build \/app\/dist .*$/m, ''), /does not copy dist\/ from the build stage/],
  ['no migrations beside dist', replaceLine(/^COPY migrations .*$/m, ''), /does not copy migrations/],
  ['tsx at run time', replaceLine(/^CMD .*$/m, 'CMD ["node", "--import", "tsx", "src/api/addrsum-api.ts"]'), /mentions tsx/],
  ['a shell-form CMD', replaceLine(/^CMD .*$/m, 'CMD node dist/src/api/addrsum-api.js'), /does not run `node dist\/….js` in exec form/],
  [
    'a CMD whose source does not exist',
    replaceLine(/^CMD .*$/m, 'CMD ["node", "dist/src/api/addrsum-server.js"]'),
    /src\/api\/addrsum-server\.ts does not exist/,
  ],
  ['root', replaceLine(/^USER node$/m, 'USER root'), /runs as root/],
  ['no USER', replaceLine(/^USER node$/m, ''), /runs as root/],
  ['no HEALTHCHECK', DOCKERFILE.replace(/^HEALTHCHECK [^\n]*\\\n[^\n]*\n/m, ''), /no HEALTHCHECK/],
  [
    'a curl probe',
    DOCKERFILE.replace(/^(HEALTHCHECK [^\n]*\\\n)\s*CMD [^\n]*$/m, '$1  CMD curl -f http://127.0.0.1:8080/health'),
    /does not probe \/health with node/,
  ],
  [
    'a COPY of a missing file',
    replaceLine(/^COPY config \.\/config$/m, 'COPY config ./config\nCOPY conf.d ./conf.d'),
    /COPY conf\.d: no such file/,
  ],
  [
    'a COPY of an ignored directory',
    replaceLine(/^COPY indexer \.\/indexer$/m, 'COPY indexer ./indexer\nCOPY test ./test'),
    /COPY test: excluded by \.dockerignore/,
  ],
  [
    'apt lists kept',
    DOCKERFILE.replace(' \\\n && rm -rf /var/lib/apt/lists/*\nCOPY package.json', '\nCOPY package.json'),
    /apt-get install without --no-install-recommends and list cleanup/,
  ],
];

describe('each Dockerfile check catches a broken copy', () => {
  it.each(BROKEN)('%s', (_what, broken, expected) => {
    expect(broken).not.toBe(DOCKERFILE);
    const problems = dockerfileProblems(broken);
    expect(
      problems.some((p) => expected.test(p)),
      problems.join('\n'),
    ).toBe(true);
  });
});
