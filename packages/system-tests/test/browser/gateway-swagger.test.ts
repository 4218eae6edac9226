import {
  CLIENTS,
  callWith,
  type IdentityUnderTest,
  STOCK,
  scratchFolder,
  startIdentity,
} from '@commerce/identity/testing';
import { DEFAULT_CONFIG as GATEWAY_DEFAULTS, startGateway } from '@commerce/gateway';
import type { RunningService } from '@platform/http/service';
import { createLogger } from '@platform/runtime';
import { freePort, IN_THIS_PROCESS } from '@platform/test-kit';
import { DEFAULT_CONFIG as SALES_DEFAULTS, startSalesService } from '@sales/service';
import { DEFAULT_CONFIG as STOCK_DEFAULTS, startStockService } from '@stock/service';
import { expect } from 'chai';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { ARTIFACTS, expectNoTrouble, launchChromium, watchForTrouble } from './chromium';

const DOCS = join(import.meta.dirname, '..', '..', '..', '..', 'docs');

describe('the gateway’s /swagger in headless Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  let files: ReturnType<typeof scratchFolder>;
  let identity: IdentityUnderTest;
  const running: RunningService[] = [];
  let gatewayUrl: string;
  let lamp: number;

  before(async function () {
    browser = await launchChromium(this);
    // The issuer is the gateway's /identity, as start:system has it: the page asks for tokens on its own origin.
    const gatewayPort = await freePort();
    gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    files = scratchFolder();
    identity = await startIdentity(files, { issuer: `${gatewayUrl}/identity` });
    const auth = {
      authIssuer: identity.service.issuer,
      authDiscoveryUrl: `${identity.service.url}/identity/.well-known/openid-configuration`,
    };
    const quiet = (service: string) => ({ logger: createLogger(service, 'warn') });
    const stock = await startStockService({ ...STOCK_DEFAULTS, ...IN_THIS_PROCESS, ...auth }, quiet('stock-service'));
    const seller = CLIENTS.find((client) => client.scopes.includes('stock:read'))!;
    const sales = await startSalesService(
      {
        ...SALES_DEFAULTS,
        ...IN_THIS_PROCESS,
        ...auth,
        stockUrl: stock.url,
        stockClientId: seller.clientId,
        stockClientSecret: seller.clientSecret,
      },
      quiet('sales-service'),
    );
    const gateway = await startGateway(
      {
        ...GATEWAY_DEFAULTS,
        stockOpenApiFile: join(DOCS, 'openapi.yaml'),
        salesOpenApiFile: join(DOCS, 'sales.openapi.yaml'),
        port: gatewayPort,
        host: '127.0.0.1',
        metricsPort: 0,
        shutdownDelayMs: 0,
        stockUrl: [stock.url],
        salesUrl: [sales.url],
        identityUrl: [identity.service.url],
        ...auth,
      },
      quiet('gateway'),
    );
    running.push(gateway, sales, stock);
    const created = await callWith(
      `${gatewayUrl}/api/products`,
      await identity.token('inventory-sync', STOCK, 'stock:write'),
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Desk lamp', price: 39.9, quantityInStock: 5 }),
      },
    );
    lamp = ((await created.json()) as { id: number }).id;
  });
  after(async () => {
    await browser?.close();
    for (const service of running) await service.close({ immediate: true });
    await identity?.stop();
    files?.remove();
  });

  it('gets a token with the client credentials flow from the Authorize dialog and places an order through the gateway: 202', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1600 } });
    const foreign: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${gatewayUrl}/`)) return route.continue();
      foreign.push(url);
      return route.abort('blockedbyclient');
    });
    const page = await context.newPage();
    const trouble = await watchForTrouble(context, page);
    try {
      const served = await page.goto(`${gatewayUrl}/swagger`);
      expect(served?.headers()['content-security-policy']).to.include("frame-ancestors 'none'");
      const selector = page.locator('.topbar select');
      expect(await selector.locator('option').allInnerTexts()).to.deep.equal(['Stock API', 'Sales API']);
      await selector.selectOption({ label: 'Sales API' });
      await page.locator('.opblock-tag[data-tag="Orders"]').waitFor();

      await page.locator('.auth-wrapper .authorize').click();
      const oauth = page.locator('.auth-container').filter({ hasText: 'gatewayClientCredentials' });
      const buyer = CLIENTS.find((client) => client.clientId === 'buyer-a')!;
      await oauth.locator('input[id^="client_id"]').fill(buyer.clientId);
      await oauth.locator('input[id^="client_secret"]').fill(buyer.clientSecret);
      for (const scope of ['orders:read', 'orders:write']) await oauth.locator('label', { hasText: scope }).click();
      await oauth.locator('button.authorize').click();
      // Authorized: the dialog offers to log out, and shows no error from the token endpoint.
      await oauth.locator('button', { hasText: 'Logout' }).waitFor();
      expect(await oauth.locator('.errors').count()).to.equal(0);
      await page.locator('.modal-ux .close-modal').click();
      // Nothing of it is kept where another script of the origin, or the next person at this browser, could read it.
      const stored = String(
        await page.evaluate(
          'JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage), document.cookie])',
        ),
      );
      expect(stored).not.to.include(buyer.clientSecret).and.not.to.include('access_token').and.not.to.include('eyJ');

      const block = page.locator('#operations-Orders-placeOrder');
      await block.locator('.opblock-summary').first().click();
      await block.getByRole('button', { name: 'Try it out' }).click();
      await block
        .locator('textarea.body-param__text')
        .fill(JSON.stringify({ lines: [{ productId: lamp, quantity: 2 }] }));
      await block.getByRole('button', { name: 'Execute' }).click();
      const live = block.locator('.live-responses-table .response').first();
      await live.waitFor();
      await page.screenshot({ path: join(ARTIFACTS, 'gateway-swagger-order.png'), fullPage: true });
      expect((await live.locator('.response-col_status').innerText()).trim()).to.equal('202');
      const body = JSON.parse(await live.locator('.response-col_description pre').first().innerText()) as {
        status: string;
        buyer: string;
      };
      expect(body).to.include({ status: 'pending', buyer: 'buyer-a' });
      expect(await block.locator('.curl-command').innerText()).to.include('Authorization: Bearer ');
      await expectNoTrouble(trouble, foreign);
    } finally {
      await context.close();
    }
  });
});
