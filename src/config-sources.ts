/**
 * The layered sources of the configuration (config.ts): TOML files read and merged in order, with the
 * origin of every leaf kept so that a bad value is reported where it was written.
 */
import { readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { CodedError } from './coded-error.js';

export class ConfigError extends CodedError<'CONFIG_INVALID'> {
  constructor(message: string) {
    super('CONFIG_INVALID', message);
  }
}

export type Table = Record<string, unknown>;
export const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** Where each leaf came from: dotted path → a label for messages. */
export type Origins = Map<string, string>;

export function readToml(file: string, label: string): Table {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`${label}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return parseToml(source) as Table;
  } catch (err) {
    const e = err as { line?: number; column?: number; message?: string };
    const what = (e.message ?? 'invalid TOML').split('\n')[0] ?? 'invalid TOML';
    throw new ConfigError(`${label}: ${file}: ${what} (line ${e.line ?? '?'}, column ${e.column ?? '?'})`);
  }
}

export function merge(target: Table, source: Table, label: string, origins: Origins, prefix: string[] = []): void {
  for (const [key, value] of Object.entries(source)) {
    const at = [...prefix, key];
    const existing = target[key];
    if (isTable(value) && isTable(existing)) {
      merge(existing, value, label, origins, at);
    } else {
      target[key] = isTable(value) ? structuredClone(value) : value;
      markOrigins(value, `${label}: ${at.join('.')}`, origins, at);
    }
  }
}

export function markOrigins(value: unknown, label: string, origins: Origins, at: string[]): void {
  origins.set(at.join('.'), label);
  if (isTable(value)) {
    for (const [k, v] of Object.entries(value)) markOrigins(v, `${label}.${k}`, origins, [...at, k]);
  }
}

export function setPath(target: Table, at: readonly string[], value: unknown): void {
  let node = target;
  for (const key of at.slice(0, -1)) {
    const next = node[key];
    if (!isTable(next)) node[key] = {};
    node = node[key] as Table;
  }
  node[at[at.length - 1] as string] = value;
}

export function getPath(source: unknown, at: readonly PropertyKey[]): unknown {
  let node = source;
  for (const key of at) {
    if (Array.isArray(node) && typeof key === 'number') node = node[key] as unknown;
    else node = isTable(node) ? node[key as string] : undefined;
  }
  return node;
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
