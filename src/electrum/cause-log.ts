/**
 * A log line per connection closed or refused for a cause, at most one per reason per client network per
 * minute (a flood of refusals must not become a flood of lines); what was left out is summed up in one
 * line when its minute has passed. Requests are never logged one by one: the metrics count them.
 */
import { LogSampler } from '../serving/log-sampler.js';
import type { Logger } from '../logger.js';
import type { CloseReason } from './close-reasons.js';

const WINDOW_MS = 60_000;

export class CauseLog {
  private readonly sampler = new LogSampler(1, WINDOW_MS);

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  report(reason: CloseReason, network: string, detail?: string): void {
    const t = this.now();
    for (const s of this.sampler.due(t)) {
      const [what, from] = s.kind.split(' ');
      this.log.warn(
        { reason: what, network: from, more: s.suppressed },
        'electrum: more connections closed for the same cause in the last minute',
      );
    }
    if (this.sampler.admit(`${reason} ${network}`, t)) {
      this.log.warn(
        { reason, network, ...(detail !== undefined && { detail }) },
        `electrum: connection closed (${reason}${detail === undefined ? '' : `: ${detail}`})`,
      );
    }
  }
}
