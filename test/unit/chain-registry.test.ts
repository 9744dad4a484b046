/**
 * The chain registry stays the one place that names chains: outside the chain folders no string or
 * template literal under src/ or indexer/ spells a chain code, and every registered chain has its config
 * and env bindings. (The 400-line cap is eslint's max-lines rule.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CHAINS } from '../../src/chain/registry.js';
import { ENV_VARIABLES, loadConfig } from '../../src/config.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where chain codes may be written: the chain modules and the list of them. */
const CHAIN_HOMES = [...CHAINS.map((c) => `src/chain/${c.code.toLowerCase()}/`), 'src/chain/registry.ts'];
const CODE = new RegExp(`\\b(${CHAINS.map((c) => c.code).join('|')})\\b`);

function sources(): string[] {
  return ['src', 'indexer'].flatMap((dir) =>
    (readdirSync(path.join(ROOT, dir), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `${dir}/${f.split(path.sep).join('/')}`),
  );
}

/** Text of every string and template literal piece in a file, with its line. */
function literals(file: string): { line: number; text: string }[] {
  const source = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: { line: number; text: string }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)) {
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: node.text });
    }
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

describe('chain registry', () => {
  it('the scan sees literals (a chain code in a literal is found)', () => {
    expect(literals('src/chain/btc/index.ts').some((l) => CODE.test(l.text))).toBe(true);
  });

  it('outside the chain folders, no literal under src/ or indexer/ names a chain code', () => {
    const offenders = sources()
      .filter((f) => !CHAIN_HOMES.some((home) => f === home || f.startsWith(home)))
      .flatMap((f) => literals(f).flatMap((l) => (CODE.test(l.text) ? [`${f}:${l.line}: ${JSON.stringify(l.text)}`] : [])));
    expect(offenders).toEqual([]);
  });

  it.each(CHAINS.map((c) => [c.code, c] as const))('%s has its config section and variables, every network accepted', (code, chain) => {
    for (const v of ['NETWORK', 'RPC_URL', 'ZMQ', 'MEMPOOL']) expect(ENV_VARIABLES).toContain(`ADDRSUM_${code}_${v}`);
    for (const network of chain.networkNames) {
      const config = loadConfig({ env: { [`ADDRSUM_${code}_NETWORK`]: network } });
      expect((config.chains as Record<string, { network: string }>)[code]?.network).toBe(network);
    }
    expect(Number.isSafeInteger(chain.maxMoneySats)).toBe(true);
  });
});
