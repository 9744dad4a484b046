/**
 * The WebSockets a browser page opens, counted inside the page: how many it created, and how many have
 * closed with every close handler run (the page's own `onclose` included). Counted in the page rather
 * than from the browser's events, so that once the page's clock has run its timers (page.clock.runFor)
 * the count already includes any socket those timers opened: "it did not reconnect" becomes a
 * condition to check, not a wait.
 */
import type { Page } from 'playwright-core';

export interface SocketCount {
  readonly created: number;
  /** Closed, and their close event fully dispatched. */
  readonly settled: number;
}

// A string, not a function: it runs in the page, whose globals this project's types do not describe.
const COUNTER = `(() => {
  const Native = window.WebSocket;
  const count = { created: 0, settled: 0 };
  window.__socketCount = count;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      count.created++;
      // Registered before the page sets onclose, so this runs first; the message's task runs after
      // the whole dispatch, the page's handler included.
      this.addEventListener('close', () => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => count.settled++;
        channel.port2.postMessage(null);
      });
    }
  };
})();`;

/** Installs the counter; call before the page loads. */
export async function countSockets(page: Page): Promise<() => Promise<SocketCount>> {
  await page.addInitScript(COUNTER);
  return () => page.evaluate('({ ...window.__socketCount })') as Promise<SocketCount>;
}
