/**
 * How far a streaming standby's replay is behind the WAL it has received, for /ready and its gauge
 * (docs/scale-out.md). Replay waits when a read on the standby holds rows a replayed change removes
 * (max_standby_streaming_delay), or when the standby is slower than the primary: the API then serves an
 * older tip. A standby that receives nothing at all shows 0 here; the freshness rules (the node last
 * seen, replicated with the tip) make it stale.
 */
/** An SQL expression: seconds of replay lag on a standby (float8), NULL on a primary. */
export const STANDBY_LAG_SQL =
  '(CASE WHEN NOT pg_is_in_recovery() THEN NULL ' +
  'WHEN pg_last_wal_receive_lsn() IS NULL OR pg_last_wal_receive_lsn() <= pg_last_wal_replay_lsn() THEN 0 ' +
  'ELSE GREATEST(0, COALESCE(EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp()), 0)) END)::float8';

/** The lag as reported (milliseconds' precision); undefined on a primary. */
export function standbyReplayLag(lag: number | null): number | undefined {
  return lag === null ? undefined : Math.round(lag * 1000) / 1000;
}
