/**
 * A Dockerfile read the way the builder reads it, for checks without a Docker engine: comments and blank
 * lines dropped, `\` continuations joined, instructions grouped into stages (each `FROM` starts one).
 * Only what the checks need: exec-form (JSON) and shell-form arguments, COPY sources and flags.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

export interface Instruction {
  /** Upper-cased keyword: FROM, RUN, COPY, ... */
  readonly keyword: string;
  /** Everything after the keyword, continuations joined with a space. */
  readonly args: string;
  /** 1-based line of the keyword, for messages. */
  readonly line: number;
}

export interface Stage {
  /** The `AS name`, or the stage's index as text when unnamed. */
  readonly name: string;
  /** The base image reference of `FROM`. */
  readonly from: string;
  readonly instructions: readonly Instruction[];
}

export function parseInstructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const first = lines[i] ?? '';
    if (/^\s*(#|$)/.test(first)) continue;
    const start = i;
    let joined = first;
    // A continuation may be followed by comment lines inside the instruction; the builder skips them.
    while (/\\\s*$/.test(joined) && i + 1 < lines.length) {
      i++;
      const next = lines[i] ?? '';
      if (/^\s*#/.test(next)) continue;
      joined = `${joined.replace(/\\\s*$/, '')} ${next.trim()}`;
    }
    const m = /^\s*([A-Za-z]+)\s*(.*)$/.exec(joined);
    if (m) out.push({ keyword: (m[1] ?? '').toUpperCase(), args: (m[2] ?? '').trim(), line: start + 1 });
  }
  return out;
}

export function parseStages(text: string): Stage[] {
  const stages: Array<{ name: string; from: string; instructions: Instruction[] }> = [];
  for (const ins of parseInstructions(text)) {
    if (ins.keyword === 'FROM') {
      const parts = ins.args.split(/\s+/).filter((p) => !p.startsWith('--'));
      const as = parts.findIndex((p) => p.toUpperCase() === 'AS');
      stages.push({ name: as >= 0 ? (parts[as + 1] ?? '') : String(stages.length), from: parts[0] ?? '', instructions: [] });
    } else {
      stages.at(-1)?.instructions.push(ins);
    }
  }
  return stages;
}

/** Exec form `["a", "b"]` as its list; shell form as `['/bin/sh', '-c', text]`, as the builder runs it. */
export function commandArgv(args: string): string[] {
  if (args.startsWith('[')) {
    const parsed: unknown = JSON.parse(args);
    if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === 'string')) throw new Error(`not a JSON string array: ${args}`);
    return parsed;
  }
  return ['/bin/sh', '-c', args];
}

export interface Copy {
  /** `--from=` stage (or image), undefined for the build context. */
  readonly from: string | undefined;
  readonly sources: readonly string[];
  readonly dest: string;
  readonly line: number;
}

export function copiesOf(stage: Stage): Copy[] {
  return stage.instructions
    .filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD')
    .map((i) => {
      const words = i.args.startsWith('[') ? commandArgv(i.args) : i.args.split(/\s+/);
      const flags = words.filter((w) => w.startsWith('--'));
      const paths = words.filter((w) => !w.startsWith('--'));
      const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
      return { from, sources: paths.slice(0, -1), dest: paths.at(-1) ?? '', line: i.line };
    });
}

/** `*` and `?` of one path segment, as the builder's COPY matches them. */
function segmentPattern(segment: string): RegExp {
  const escaped = segment
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]');
  return new RegExp(`^${escaped}$`);
}

/** Build-context files a COPY source names (globs in the last segment only, as this project uses). */
export function contextMatches(root: string, source: string): string[] {
  const rel = path.normalize(source).replace(/\/$/, '');
  if (!/[*?]/.test(rel)) return existsSync(path.join(root, rel)) ? [rel] : [];
  const dir = path.dirname(rel);
  const pattern = segmentPattern(path.basename(rel));
  const full = path.join(root, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full)
    .filter((name) => pattern.test(name))
    .map((name) => path.join(dir, name));
}

/** Whether a .dockerignore pattern list leaves `rel` in the build context (no `!` exceptions handled). */
export function inContext(ignore: readonly string[], rel: string): boolean {
  const parts = path.normalize(rel).split('/');
  return !ignore.some((raw) => {
    const pattern = raw.trim().replace(/^\/|\/$/g, '');
    if (pattern === '' || pattern.startsWith('#') || pattern.startsWith('!')) return false;
    const pat = pattern.split('/').map(segmentPattern);
    // A pattern excludes the path it names and everything beneath it.
    return pat.length <= parts.length && pat.every((re, i) => re.test(parts[i] ?? ''));
  });
}

/**
 * The TypeScript file `npm run build` compiles to a dist/ path: tsc keeps the repository's layout under
 * dist/ (rootDir is the package root), so dist/indexer/x.js comes from indexer/x.ts. Undefined when the
 * path is not a compiled file.
 */
export function compiledFrom(distPath: string): string | undefined {
  const m = /^(?:\.\/)?dist\/(.+)\.js$/.exec(distPath);
  return m ? `${m[1]}.ts` : undefined;
}
