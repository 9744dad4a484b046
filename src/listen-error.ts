/**
 * A port that cannot be listened on because something holds it, said in the operator's terms. Node's
 * own message names only the address; with an API and an indexer per chain each listening, that leaves
 * the operator to guess whose port it is and which setting moves it.
 */
import { CodedError } from './coded-error.js';
import { settingWithVariables } from './setting-variables.js';

/** Node's code, kept: an operator's scripts may already match on it. */
export class PortInUseError extends CodedError<'EADDRINUSE'> {}

export interface Listener {
  /** Who listens, for people: `the API`, `the LTC indexer's metrics`. */
  readonly who: string;
  /** The setting that chooses the port, as the configuration spells it: `api.port`, `chains.LTC.metricsPort`. */
  readonly setting: string;
  readonly host: string;
  readonly port: number;
}

/** `err` from listen(): a PortInUseError when the port is taken, anything else unchanged. */
export function explainListenError(err: unknown, listener: Listener): unknown {
  if ((err as { code?: unknown } | null)?.code !== 'EADDRINUSE') return err;
  const { who, setting, host, port } = listener;
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return new PortInUseError(
    'EADDRINUSE',
    `${address} is already in use (EADDRINUSE), so ${who} cannot listen there; the port is ${settingWithVariables(setting)}. ` +
      'Is another instance running? Stop it, or choose another port (0 = any free port).',
    { cause: err },
  );
}
