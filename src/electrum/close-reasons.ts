/**
 * Why the server closes an Electrum connection (a client leaving on its own has no reason): the label
 * values of addrsum_api_electrum_disconnects_total, each created at 0.
 *   slow_reader     more answer bytes unread than electrum.maxBufferedBytes
 *   oversized_line  a request line longer than electrum.maxLineBytes
 *   bad_lines       too many unusable lines in a row (not JSON, not a request)
 *   limit           over electrum.connectionsPerNetwork: refused at connect (TLS: before the handshake)
 *   evicted         idle while its listener was full (api.maxConnections) and a new connection came
 *   rate_limited    past a hard cost limit of its session or network (cost-meter.ts)
 *   idle            no request for electrum.idleTimeoutSeconds
 *   version         server.version named no protocol version we speak
 */
export const CLOSE_REASONS = ['slow_reader', 'oversized_line', 'bad_lines', 'limit', 'rate_limited', 'idle', 'version', 'evicted'] as const;

export type CloseReason = (typeof CLOSE_REASONS)[number];
