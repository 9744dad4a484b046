/**
 * ADDRSUM_API_WORKERS=N (N > 1): the process started as the API becomes a supervisor that forks N
 * workers (node:cluster). The supervisor owns the listening socket and hands each new connection to a
 * worker (round-robin), so the port never stops accepting while workers come and go.
 *
 *   SIGHUP          rolling restart: for each worker in turn, fork its replacement, wait until it
 *                   listens, then ask the old one to stop (it finishes in-flight requests, as on SIGTERM).
 *                   At least N workers serve throughout, so no request is refused.
 *   SIGTERM/SIGINT  ask every worker to stop, exit 0 when all have (a second signal: kill them, exit 1).
 *   a worker dies   fork a replacement after RESPAWN_DELAY_MS; if no worker ever listened (bad port,
 *                   bad data directory) the supervisor stops with exit 1 instead of looping.
 *
 * Workers run the ordinary API (main.ts) and share nothing in memory: token buckets are shared only
 * through Redis (ADDRSUM_REDIS_URL), and /metrics, whichever worker takes the scrape, is the sum over
 * the serving workers, merged here (cluster-metrics.ts).
 */
import cluster, { type Worker } from 'node:cluster';
import type http from 'node:http';
import type { Logger } from '../logger.js';
import { superviseMetrics } from './cluster-metrics.js';

/** IPC message asking a worker to stop as on SIGTERM. */
export const STOP_MESSAGE = 'addrsum:stop';
const RESPAWN_DELAY_MS = 1000;
const FORCE_KILL_MS = 15_000;
const IDLE_GRACE_MS = 1000;

export function isSupervisor(workers: number): boolean {
  return workers > 1 && cluster.isPrimary;
}

/** In a worker: the logger tagged with the worker's number; elsewhere the logger itself. */
export function workerLogger(logger: Logger): Logger {
  return cluster.worker ? logger.child({ worker: cluster.worker.id }) : logger;
}

/**
 * In a worker: call `stop`, then `exit`, when the supervisor asks (a rolling restart, or the supervisor stopping),
 * after preparing `server` so that no request on an open connection is dropped: Node's server.close()
 * also closes idle keep-alive connections at once, and a connection the supervisor has just handed over
 * is "idle" until its first request is parsed, so closing them at once could drop that request. Instead,
 * for IDLE_GRACE_MS every answer says `Connection: close` (clients move to a new connection, which the
 * supervisor gives to a live worker), and only then are the connections still idle closed.
 */
export function onSupervisorStop(server: http.Server, stop: () => Promise<void>, exit: () => void): void {
  if (!cluster.isWorker) return;
  let asked = false;
  process.on('message', (message: unknown) => {
    if (message !== STOP_MESSAGE || asked) return;
    asked = true;
    const closeIdle = server.closeIdleConnections.bind(server);
    server.closeIdleConnections = () => undefined;
    server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) => res.setHeader('Connection', 'close'));
    setTimeout(() => {
      server.closeIdleConnections = closeIdle;
      closeIdle();
    }, IDLE_GRACE_MS).unref();
    // Stay alive a moment after the server has closed: a connection the supervisor handed over just
    // before it learnt of the close is then declined by Node and handed to another worker, where an
    // exit would lose it (seen as a request left unanswered during a rolling restart).
    void stop().then(() => setTimeout(exit, IDLE_GRACE_MS));
  });
}

function listening(worker: Worker): Promise<boolean> {
  return new Promise((resolve) => {
    const onListening = (): void => {
      worker.off('exit', onExit);
      resolve(true);
    };
    const onExit = (): void => {
      worker.off('listening', onListening);
      resolve(false);
    };
    worker.once('listening', onListening);
    worker.once('exit', onExit);
  });
}

function exited(worker: Worker): Promise<void> {
  if (worker.isDead()) return Promise.resolve();
  return new Promise((resolve) => worker.once('exit', () => resolve()));
}

function askToStop(worker: Worker): void {
  if (worker.isConnected()) worker.send(STOP_MESSAGE);
  else worker.process.kill('SIGTERM');
}

/** Runs the supervisor until it exits the process; never resolves. */
export function superviseWorkers(count: number, logger: Logger): Promise<never> {
  const log = logger.child({ component: 'supervisor' });
  /** Workers that should be serving; retiring ones are removed before they are asked to stop. */
  const serving = new Set<Worker>();
  superviseMetrics(() => serving);
  let everListened = false;
  let announced = false;
  let stopping = false;
  let restarting = false;

  const fork = (): Worker => {
    const worker = cluster.fork();
    serving.add(worker);
    worker.on('listening', (address) => {
      everListened = true;
      if (!announced) {
        announced = true;
        log.info({ address: address.address, port: address.port, workers: count }, 'listening');
      }
    });
    worker.on('exit', (code, signal) => {
      if (!serving.delete(worker) || stopping) return;
      if (!everListened) {
        log.fatal({ worker: worker.id, code, signal }, 'a worker exited before any listened; stopping');
        shutdown(1);
        return;
      }
      log.error({ worker: worker.id, code, signal }, 'worker died; starting a replacement');
      setTimeout(() => {
        if (!stopping) fork();
      }, RESPAWN_DELAY_MS);
    });
    return worker;
  };

  const shutdown = (code: number): void => {
    stopping = true;
    const all = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    for (const worker of all) askToStop(worker);
    const force = setTimeout(() => {
      for (const worker of all) worker.process.kill('SIGKILL');
    }, FORCE_KILL_MS);
    force.unref();
    void Promise.all(all.map(exited)).then(() => {
      log.info('all workers stopped');
      logger.flush(() => process.exit(code));
    });
  };

  const rollingRestart = async (): Promise<void> => {
    if (restarting || stopping) return;
    restarting = true;
    log.info({ workers: serving.size }, 'SIGHUP: restarting workers one at a time');
    try {
      for (const old of [...serving]) {
        if (stopping) return;
        const fresh = fork();
        if (!(await listening(fresh))) {
          log.error({ worker: fresh.id }, 'replacement worker did not start; keeping the old one');
          return;
        }
        serving.delete(old);
        askToStop(old);
        await exited(old);
        log.info({ stopped: old.id, started: fresh.id }, 'worker replaced');
      }
      log.info('rolling restart done');
    } finally {
      restarting = false;
    }
  };

  let signals = 0;
  const onStopSignal = (signal: NodeJS.Signals): void => {
    if (++signals > 1) {
      log.warn({ signal }, 'second signal: killing workers');
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
      process.exit(1);
    }
    log.info({ signal }, 'stopping workers');
    shutdown(0);
  };
  process.on('SIGTERM', onStopSignal);
  process.on('SIGINT', onStopSignal);
  process.on('SIGHUP', () => void rollingRestart());

  for (let i = 0; i < count; i++) fork();
  return new Promise<never>(() => undefined);
}
