/**
 * Debian's chromium (installed by scripts/ensure-deps.sh), driven by playwright-core, which never
 * downloads a browser of its own. One headless browser with a fresh profile in a temp dir; close()
 * removes it. Shared by the browser tests and the README screenshot script.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  readonly context: BrowserContext;
  /** A new page whose errors (uncaught exceptions, console errors) are collected in `errors`. */
  page(): Promise<{ page: Page; errors: string[] }>;
  close(): Promise<void>;
}

export async function launchBrowser(viewport = { width: 1100, height: 800 }): Promise<Browser> {
  const profile = await mkdtemp(path.join(tmpdir(), 'addrsum-chromium-'));
  // A persistent context is how Playwright takes a --user-data-dir of our choosing.
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport });
  return {
    context,
    async page() {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
      });
      return { page, errors };
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
