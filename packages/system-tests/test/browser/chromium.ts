import { expect } from 'chai';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Where the suites save their screenshots. */
export const ARTIFACTS = join(import.meta.dirname, '..', '..', '..', '..', 'test-artifacts');
const browserRequired = process.env.CI === 'true' || process.env.REQUIRE_BROWSER === '1';

/**
 * Debian's Chromium, headless, with nothing that reaches the network on its
 * own. When it is missing, fails if the browser is required (CI), else skips
 * the suite with a notice.
 */
export async function launchChromium(context: Mocha.Context): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    if (browserRequired) throw new Error(`Chromium is required but missing at ${CHROMIUM} (apt-get install chromium).`);
    console.warn(
      `  ! Chromium not found at ${CHROMIUM}: skipping the browser tests. Set REQUIRE_BROWSER=1 to fail instead.`,
    );
    context.skip();
  }
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * What a page did wrong: console errors, uncaught exceptions, and Content-Security-Policy violations, even those a
 * script caught.
 */
export interface PageTrouble {
  readonly consoleErrors: string[];
  readonly pageErrors: string[];
  /** Each as `directive blocked-uri` (sample). */
  violations(): Promise<string[]>;
}

/** Starts recording a context's pages' trouble: call before the page opens. */
export async function watchForTrouble(context: BrowserContext, page: Page): Promise<PageTrouble> {
  // A script string: these tests compile without the DOM's types.
  await context.addInitScript(`
    window.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (event) => window.cspViolations.push((event.effectiveDirective + ' ' + event.blockedURI + ' ' + event.sample).trim()));
  `);
  const consoleErrors: string[] = [];
  const pageErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return { consoleErrors, pageErrors, violations: () => page.evaluate<string[]>('window.cspViolations') };
}

/** A page that did nothing wrong: it reached no other host, threw nothing, broke no CSP directive, logged no error. */
export async function expectNoTrouble(trouble: PageTrouble, foreign: readonly string[]): Promise<void> {
  expect(foreign, 'requests to other hosts').to.deep.equal([]);
  expect(trouble.pageErrors).to.deep.equal([]);
  expect(await trouble.violations(), 'Content-Security-Policy violations').to.deep.equal([]);
  expect(trouble.consoleErrors).to.deep.equal([]);
}
