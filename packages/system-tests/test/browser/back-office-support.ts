import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type PageTrouble, watchForTrouble } from './chromium';

/** What the back office's browser suites share: a build, staff, a context kept to the gateway, sign-in, axe-core. */
export const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface StaffUser {
  readonly username: string;
  readonly password: string;
  /** One role, or several joined by commas, as `--role` takes them. */
  readonly role: string;
}

/** The back office built as `pnpm build:back-office` builds it, into `outDir`. */
export function buildBackOffice(outDir: string): void {
  const built = spawnSync('pnpm', ['--dir', 'packages/back-office', 'exec', 'vite', 'build', '--logLevel', 'warn'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, BACK_OFFICE_OUT_DIR: outDir },
  });
  expect(built.status, built.stderr).to.equal(0);
}

/** A member of staff added as `pnpm identity:add-user <name> --role <role> --password-stdin` adds one. */
export function addUser(usersFile: string, user: StaffUser): void {
  const tsx = pathToFileURL(require.resolve('tsx')).href;
  const script = join(ROOT, 'packages', 'identity', 'src', 'add-user-main.ts');
  const added = spawnSync(
    process.execPath,
    ['--import', tsx, script, user.username, '--role', user.role, '--password-stdin'],
    { input: `${user.password}\n`, encoding: 'utf8', env: { ...process.env, IDENTITY_USERS_FILE: usersFile } },
  );
  expect(added.status, added.stderr).to.equal(0);
}

interface Violation {
  readonly id: string;
  readonly impact: string;
  readonly nodes: { target: string[] }[];
}

/** axe-core's scan of the page as it is: its serious and critical violations (none expected). */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated by the browser's debugger, which the page's Content-Security-Policy does not govern: nothing from a CDN.
  await page.evaluate(AXE);
  const violations = await page.evaluate<Violation[]>(
    'axe.run(document, { resultTypes: ["violations"] }).then((result) => result.violations)',
  );
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

export interface GatewayContext {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly trouble: PageTrouble;
  /** Requests to anywhere but the gateway, each refused. */
  readonly foreign: string[];
}

/** A browser context that may reach the gateway only, with its page and what went wrong on it. */
export async function openGatewayContext(browser: Browser, gatewayUrl: string): Promise<GatewayContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const foreign: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${gatewayUrl}/`)) return route.continue();
    foreign.push(url);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  return { context, page, trouble: await watchForTrouble(context, page), foreign };
}

/** Opens /admin/, lands on the issuer's sign-in page, and signs in with the keyboard alone. */
export async function signInAt(page: Page, gatewayUrl: string, user: StaffUser): Promise<void> {
  const served = await page.goto(`${gatewayUrl}/admin/`);
  expect(served?.status()).to.equal(200);
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  expect(await seriousViolations(page), 'the sign-in page').to.deep.equal([]);
  // The Username field has the focus when the page opens.
  await page.keyboard.type(user.username);
  await page.keyboard.press('Tab');
  await page.keyboard.type(user.password);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Products' }).waitFor();
}

/** Signs out at the issuer, which asks first, and comes back to the app signed out. */
export async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign out?' }).waitFor();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByText('You have signed out.').waitFor();
}
