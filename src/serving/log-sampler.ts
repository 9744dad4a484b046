/**
 * Keeps a flood of requests from filling the disk with log lines: per kind (here: the status), the first
 * `perWindow` lines of each `windowMs` window are written (a budget per kind when `perWindow` is a function), the rest only counted,
 * and when a window with left-out lines has ended, one summary line says how many. The counts also go to
 * a metric, so nothing is lost for monitoring. Pure: the caller passes the time and writes the lines.
 */
export interface SuppressedSummary {
  readonly kind: string;
  readonly suppressed: number;
  readonly windowStart: number;
}

interface Window {
  start: number;
  written: number;
  suppressed: number;
}

export class LogSampler {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly perWindow: number | ((kind: string) => number) = 20,
    private readonly windowMs = 10_000,
  ) {}

  /** Whether to write this line; false = counted as suppressed. Call due() first, or ended windows' counts are lost. */
  admit(kind: string, now: number): boolean {
    let w = this.windows.get(kind);
    if (!w || now - w.start >= this.windowMs) {
      w = { start: now, written: 0, suppressed: 0 };
      this.windows.set(kind, w);
    }
    if (w.written < (typeof this.perWindow === 'number' ? this.perWindow : this.perWindow(kind))) {
      w.written++;
      return true;
    }
    w.suppressed++;
    return false;
  }

  /** Summaries of windows that have ended with suppressed lines; each is reported once. */
  due(now: number): SuppressedSummary[] {
    const out: SuppressedSummary[] = [];
    for (const [kind, w] of this.windows) {
      if (now - w.start < this.windowMs) continue;
      if (w.suppressed > 0) out.push({ kind, suppressed: w.suppressed, windowStart: w.start });
      this.windows.delete(kind);
    }
    return out;
  }
}
