import { callWith, type IdentityUnderTest, STOCK, scratchFolder, startIdentity } from '@commerce/identity/testing';
import { DEFAULT_CONFIG as GATEWAY_DEFAULTS, startGateway } from '@commerce/gateway';
import type { RunningService } from '@platform/http/service';
import { createLogger } from '@platform/runtime';
import { freePort, IN_THIS_PROCESS } from '@platform/test-kit';
import { DEFAULT_CONFIG as STOCK_DEFAULTS, startStockService } from '@stock/service';
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
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
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

/** The issuer, stock and the gateway serving the built back office at /admin/, with `users` in the users file. */
export interface BackOfficeSystem {
  readonly gatewayUrl: string;
  readonly identity: IdentityUnderTest;
  /**
   * Calls stock through the gateway as a machine client with stock:read and stock:write: someone else, to the person
   * in the app.
   */
  stockApi(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

export async function startBackOfficeSystem(users: readonly StaffUser[]): Promise<BackOfficeSystem> {
  const files = scratchFolder();
  const running: RunningService[] = [];
  let identity: IdentityUnderTest | undefined;
  const stop = async () => {
    for (const service of running) await service.close({ immediate: true });
    await identity?.stop();
    files.remove();
  };
  try {
    const built = join(files.folder, 'back-office');
    buildBackOffice(built);
    for (const user of users) addUser(files.usersFile, user);
    // The issuer is the gateway's /identity, as start:system has it: the app signs in on its own origin.
    const gatewayPort = await freePort();
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    // Behind the gateway, as start:system runs it: the endpoints it advertises are the gateway's (X-Forwarded-Host).
    identity = await startIdentity(files, {
      issuer: `${gatewayUrl}/identity`,
      redisUrl: REDIS_URL,
      trustProxy: 'true',
    });
    const auth = {
      authIssuer: identity.service.issuer,
      authDiscoveryUrl: `${identity.service.url}/identity/.well-known/openid-configuration`,
    };
    const quiet = (service: string) => ({ logger: createLogger(service, 'warn') });
    const stock = await startStockService({ ...STOCK_DEFAULTS, ...IN_THIS_PROCESS, ...auth }, quiet('stock-service'));
    running.push(stock);
    const gateway = await startGateway(
      {
        ...GATEWAY_DEFAULTS,
        port: gatewayPort,
        host: '127.0.0.1',
        metricsPort: 0,
        shutdownDelayMs: 0,
        stockUrl: [stock.url],
        salesUrl: [stock.url],
        identityUrl: [identity.service.url],
        backOfficeDir: built,
        ...auth,
      },
      quiet('gateway'),
    );
    running.unshift(gateway);
    const issuer = identity;
    return {
      gatewayUrl,
      identity: issuer,
      stockApi: async (path, init = {}) =>
        callWith(`${gatewayUrl}${path}`, await issuer.token('inventory-sync', STOCK, 'stock:read stock:write'), {
          ...init,
          headers: { 'content-type': 'application/json', ...init.headers },
        }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Tabs through the page until the element labelled `label` (within `scope`, the page by default) has the focus. */
export async function tabTo(page: Page, label: string, scope: Pick<Page, 'getByLabel'> = page): Promise<void> {
  const id = await scope.getByLabel(label, { exact: true }).getAttribute('id');
  for (let presses = 0; presses < 80; presses++) {
    if ((await page.evaluate<string | undefined>('document.activeElement?.id')) === id) return;
    await page.keyboard.press('Tab');
  }
  expect.fail(`Tab never reached ${label}`);
}
