/**
 * /metrics across ADDRSUM_API_WORKERS: whichever worker takes the scrape answers for all of them.
 *
 * Why: a scrape lands on one worker, so per-worker counters would go up and down from one scrape to the
 * next, and Prometheus reads every drop as a counter reset (rate() turns to noise).
 *
 * How: the scraped worker asks the supervisor; the supervisor asks every serving worker for its
 * registry as JSON (each refreshes its index gauges first, as a lone API does per scrape), merges them
 * with prom-client's own AggregatorRegistry.aggregate (counters and histograms summed; each gauge says
 * how in its `aggregator`), and sends the text back. A worker that does not answer within
 * ANSWER_TIMEOUT_MS is left out of that scrape rather than failing it.
 */
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client';

type Collected = MetricObjectWithValues<MetricValue<string>>[];

/** Worker → supervisor: "the cluster's metrics, please", and the supervisor's answer. */
const SCRAPE = 'addrsum:scrape';
/** Supervisor → worker: "your registry, please", and the worker's answer. */
const COLLECT = 'addrsum:collect';
/** How long the supervisor waits for each worker; a scraped worker waits twice that for the supervisor. */
const ANSWER_TIMEOUT_MS = 3000;

interface Message {
  type: string;
  id: number;
  text?: string;
  metrics?: Collected;
}

function isMessage(m: unknown, type: string): m is Message {
  return typeof m === 'object' && m !== null && (m as Message).type === type && typeof (m as Message).id === 'number';
}

let nextId = 0;

/** Sends `request` through `send` and resolves with the first `reply` of the same id, or null on timeout. */
function ask(
  target: Pick<NodeJS.Process, 'on' | 'off'> | Worker,
  send: (m: Message) => void,
  type: string,
  timeoutMs: number,
): Promise<Message | null> {
  const id = ++nextId;
  return new Promise((resolve) => {
    const onMessage = (m: unknown): void => {
      if (!isMessage(m, type) || m.id !== id || (m.text === undefined && m.metrics === undefined)) return;
      done(m);
    };
    const timer = setTimeout(() => done(null), timeoutMs);
    const done = (m: Message | null): void => {
      clearTimeout(timer);
      target.off('message', onMessage);
      resolve(m);
    };
    target.on('message', onMessage);
    send({ type, id });
  });
}

/**
 * In a worker: answer the supervisor's collect requests with `collect()`, and return the scrape
 * function that /metrics calls (the whole cluster's text; null when the supervisor did not answer).
 */
export function workerMetrics(collect: () => Promise<Collected>): () => Promise<string | null> {
  process.on('message', (m: unknown) => {
    if (!isMessage(m, COLLECT) || m.metrics !== undefined) return;
    void collect().then((metrics) => process.send?.({ type: COLLECT, id: m.id, metrics } satisfies Message));
  });
  return async () => {
    const answer = await ask(process, (m) => process.send?.(m), SCRAPE, 2 * ANSWER_TIMEOUT_MS);
    return answer?.text ?? null;
  };
}

/** In the supervisor: answer scrapes from any worker with every serving worker's metrics merged. */
export function superviseMetrics(serving: () => Iterable<Worker>): void {
  cluster.on('message', (from: Worker, m: unknown) => {
    if (!isMessage(m, SCRAPE) || m.text !== undefined) return;
    void (async () => {
      const answers = await Promise.all(
        [...serving()].map((worker) => ask(worker, (req) => worker.isConnected() && worker.send(req), COLLECT, ANSWER_TIMEOUT_MS)),
      );
      const collected = answers.flatMap((a) => (a?.metrics ? [a.metrics] : []));
      const text = await AggregatorRegistry.aggregate(collected).metrics();
      if (from.isConnected()) from.send({ type: SCRAPE, id: m.id, text } satisfies Message);
    })();
  });
}
