/**
 * The parts of a Compose file the compose test reads, after the two steps `docker compose config` does
 * before using one: variable interpolation (compose-spec "Interpolation": `${VAR}`, `${VAR:-default}`,
 * `${VAR-default}`, `${VAR:?error}`, `${VAR?error}`, `${VAR:+alt}`, `${VAR+alt}`, `$VAR`, `$$`) and
 * a typed view (zod) of the few keys the checks need. No Docker engine is needed.
 */
import { z } from 'zod';

export class InterpolationError extends Error {
  override readonly name = 'InterpolationError';
  readonly code = 'COMPOSE_INTERPOLATION';
}

const TOKEN = /\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*)|)/g;

/** One string, as Compose interpolates it; `${VAR:?msg}` with VAR unset or empty throws `msg`. */
export function interpolateString(text: string, env: Readonly<Record<string, string | undefined>>): string {
  return text.replace(TOKEN, (whole, dollar?: string, braced?: string, op?: string, arg?: string, bare?: string) => {
    if (dollar !== undefined) return '$';
    const name = braced ?? bare;
    if (name === undefined) throw new InterpolationError(`invalid interpolation format in ${JSON.stringify(text)}`);
    const value = env[name];
    const unset = value === undefined;
    const empty = unset || value === '';
    switch (op) {
      case undefined:
        return value ?? '';
      case ':-':
        return empty ? (arg ?? '') : value;
      case '-':
        return unset ? (arg ?? '') : value;
      case ':?':
      case '?':
        if (op === ':?' ? empty : unset) throw new InterpolationError(`${name}: ${arg || 'required variable is missing a value'}`);
        return value ?? '';
      case ':+':
        return empty ? '' : (arg ?? '');
      case '+':
        return unset ? '' : (arg ?? '');
      default:
        throw new InterpolationError(`unsupported interpolation ${whole}`);
    }
  });
}

/** Interpolates every string value (not keys) of a parsed YAML document. */
export function interpolate(value: unknown, env: Readonly<Record<string, string | undefined>>): unknown {
  if (typeof value === 'string') return interpolateString(value, env);
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env)]));
  }
  return value;
}

/** Every `${NAME…}` / `$NAME` reference in a raw document, with its operator ('' when plain). */
export function variableReferences(value: unknown): Array<{ name: string; op: string; text: string }> {
  const found: Array<{ name: string; op: string; text: string }> = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      for (const m of v.matchAll(TOKEN)) {
        const name = m[2] ?? m[5];
        if (name !== undefined) found.push({ name, op: m[3] ?? '', text: v });
      }
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(walk);
  };
  walk(value);
  return found;
}

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const stringList = z.union([z.string(), z.array(z.string())]);

const serviceSchema = z.looseObject({
  image: z.string().optional(),
  profiles: z.array(z.string()).optional(),
  build: z.union([z.string(), z.looseObject({ context: z.string(), dockerfile: z.string().optional() })]).optional(),
  command: stringList.optional(),
  entrypoint: stringList.optional(),
  environment: z.union([z.record(z.string(), scalar), z.array(z.string())]).optional(),
  ports: z
    .array(
      z.union([
        z.string(),
        z.number(),
        z.looseObject({
          target: z.union([z.number(), z.string()]),
          published: z.union([z.number(), z.string()]).optional(),
          host_ip: z.string().optional(),
        }),
      ]),
    )
    .optional(),
  volumes: z
    .array(
      z.union([
        z.string(),
        z.looseObject({
          type: z.string(),
          source: z.string().optional(),
          target: z.string().optional(),
          read_only: z.boolean().optional(),
        }),
      ]),
    )
    .optional(),
  healthcheck: z.looseObject({ test: stringList.optional() }).optional(),
  restart: z.string().optional(),
  stop_grace_period: z.string().optional(),
});
export type Service = z.infer<typeof serviceSchema>;

export const composeSchema = z.looseObject({
  services: z.record(z.string(), serviceSchema),
  volumes: z.record(z.string(), z.unknown()).optional(),
  networks: z
    .record(
      z.string(),
      z
        .looseObject({ ipam: z.looseObject({ config: z.array(z.looseObject({ subnet: z.string().optional() })).optional() }).optional() })
        .nullable(),
    )
    .optional(),
});
export type ComposeModel = z.infer<typeof composeSchema>;

export const prometheusSchema = z.looseObject({
  scrape_configs: z.array(
    z.looseObject({
      job_name: z.string(),
      metrics_path: z.string().optional(),
      static_configs: z.array(z.looseObject({ targets: z.array(z.string()) })).optional(),
    }),
  ),
});
export type PrometheusModel = z.infer<typeof prometheusSchema>;

/** A command as argv: list form as is; string form split on blanks (Compose splits it shell-style). */
export function argv(command: string | readonly string[] | undefined): string[] {
  if (command === undefined) return [];
  return typeof command === 'string' ? command.trim().split(/\s+/) : [...command];
}

/** A service's environment as a map (dict or `KEY=value` list form; a bare `KEY` takes no value here). */
export function environmentOf(service: Service): Record<string, string> {
  const env = service.environment;
  if (env === undefined) return {};
  if (Array.isArray(env)) {
    return Object.fromEntries(env.filter((e) => e.includes('=')).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  }
  return Object.fromEntries(
    Object.entries(env)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, String(v)]),
  );
}

/** Bitcoin Core style `-name=value` (or `-name`, meaning 1) arguments; later ones win, as in ArgsManager. */
export function daemonFlags(args: readonly string[]): Map<string, string[]> {
  const flags = new Map<string, string[]>();
  for (const arg of args) {
    const m = /^--?([A-Za-z0-9_.]+)(?:=(.*))?$/s.exec(arg);
    if (!m?.[1]) continue;
    flags.set(m[1], [...(flags.get(m[1]) ?? []), m[2] ?? '1']);
  }
  return flags;
}

export interface PortMapping {
  readonly hostIp: string | undefined;
  readonly published: number | undefined;
  readonly target: number;
}

/** Short (`[ip:][published:]target[/proto]`) and long port syntax; ranges are not used here. */
export function portMappings(service: Service): PortMapping[] {
  return (service.ports ?? []).map((p) => {
    if (typeof p === 'object') {
      return { hostIp: p.host_ip, published: p.published === undefined ? undefined : Number(p.published), target: Number(p.target) };
    }
    const parts = String(p)
      .replace(/\/\w+$/, '')
      .split(':');
    const target = Number(parts.pop());
    const published = parts.length > 0 ? Number(parts.pop()) : undefined;
    return { hostIp: parts.length > 0 ? parts.join(':') : undefined, published, target };
  });
}

/** Named-volume and bind mounts as (source, target); `source` is a volume name or a path. */
export function mounts(service: Service): Array<{ source: string; target: string; readOnly: boolean }> {
  return (service.volumes ?? []).flatMap((v) => {
    if (typeof v === 'object') return v.source && v.target ? [{ source: v.source, target: v.target, readOnly: v.read_only === true }] : [];
    const [source, target, mode] = v.split(':');
    return source && target ? [{ source, target, readOnly: mode?.split(',').includes('ro') ?? false }] : [];
  });
}

/** Compose duration (`1m30s`, `90s`, `2m`, `1h`) in seconds; NaN when unreadable. */
export function durationSeconds(text: string | undefined): number {
  if (text === undefined || !/^(\d+(\.\d+)?(ms|us|ns|s|m|h))+$/.test(text)) return Number.NaN;
  const unit: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, ns: 1e-9 };
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ms|us|ns|s|m|h)/g)) total += Number(m[1]) * (unit[m[2] ?? 's'] ?? Number.NaN);
  return total;
}
