import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createSampleApp } from '@commerce/sample-app';
import { createLogger } from '@platform/runtime';
import { DEFAULT_CONFIG, type RunningStockService, startStockService } from '@stock/service';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, expectNoTrouble, launchChromium, watchForTrouble } from './chromium';

/** What the callbacks run in the page touch of the DOM, which the project compiles without (no lib.dom). */
interface PageElement {
  getAttribute(name: string): string | null;
  scrollIntoView(): void;
  readonly ownerDocument: {
    readonly defaultView: { getComputedStyle(element: PageElement): { readonly backgroundColor: string } } | null;
  };
}

/**
 * A page whose every request to a host other than `origin` is aborted and
 * recorded: the docs must work offline, so the list has to stay empty.
 */
async function openOffline(browser: Browser, origin: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1600 } });
  const foreign: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`)) return route.continue();
    foreign.push(url);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  const trouble = await watchForTrouble(context, page);
  return { page, foreign, trouble, close: () => context.close() };
}

/** The groups ("tags") the page lists, in order. */
function groups(page: Page): Promise<(string | null)[]> {
  return page
    .locator('.opblock-tag')
    .evaluateAll((tags: PageElement[]) => tags.map((tag) => tag.getAttribute('data-tag')));
}

/** Expands an operation, presses "Try it out", lets `fill` edit it, presses "Execute", and answers the shown result. */
async function tryItOut(page: Page, operation: string, fill: (block: ReturnType<Page['locator']>) => Promise<void>) {
  const block = page.locator(operation);
  await block.locator('.opblock-summary').first().click();
  await block.getByRole('button', { name: 'Try it out' }).click();
  await fill(block);
  await block.getByRole('button', { name: 'Execute' }).click();
  const live = block.locator('.live-responses-table .response').first();
  await live.waitFor();
  return {
    status: (await live.locator('.response-col_status').innerText()).trim(),
    body: await live.locator('.response-col_description pre').first().innerText(),
    curl: await block.locator('.curl-command').innerText(),
    requestUrl: await block.locator('.request-url pre').innerText(),
  };
}

describe('the /swagger pages in headless Chromium', function () {
  this.timeout(60_000);
  let browser: Browser;
  let stock: RunningStockService;
  let sample: Server;
  let sampleOrigin: string;

  before(async function () {
    browser = await launchChromium(this);
    stock = await startStockService(
      {
        ...DEFAULT_CONFIG,
        port: 0,
        databaseUrl: 'memory:',
        openApiFile: fileURLToPath(new URL('../../../../docs/openapi.yaml', import.meta.url)),
      },
      { logger: createLogger('stock-service', 'warn') },
    );
    sample = createSampleApp({
      specFile: fileURLToPath(new URL('../../../../docs/sample-app.openapi.yaml', import.meta.url)),
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => sample.once('listening', resolve));
    sampleOrigin = `http://127.0.0.1:${(sample.address() as AddressInfo).port}`;
  });

  after(async () => {
    await browser?.close();
    await stock?.close();
    sample?.close();
  });

  it('creates and reads a product through the stock service page', async () => {
    const { page, foreign, trouble, close } = await openOffline(browser, stock.url);
    try {
      await page.goto(`${stock.url}/swagger`);
      await page.locator('.opblock-tag').first().waitFor();
      expect(await groups(page)).to.deep.equal([
        'Products',
        'Reservations',
        'Locations',
        'Stock transfers',
        'Fulfilment',
        'Webhooks',
        'Operations',
      ]);
      // Styled: swagger-ui's stylesheet applied, not the browser's defaults.
      const methodBadge = page.locator('.opblock-summary-method').first();
      expect(
        await methodBadge.evaluate(
          (badge: PageElement) => badge.ownerDocument.defaultView!.getComputedStyle(badge).backgroundColor,
        ),
      ).not.to.equal('rgba(0, 0, 0, 0)');

      const created = await tryItOut(page, '#operations-Products-createProduct', async (block) => {
        await block
          .locator('textarea.body-param__text')
          .fill(
            JSON.stringify({ name: 'Browser lamp', description: 'Made in Chromium', price: 12.5, quantityInStock: 3 }),
          );
      });
      expect(created.status).to.equal('201');
      expect(created.requestUrl).to.equal(`${stock.url}/api/products`);
      expect(created.curl)
        .to.contain(`curl -X 'POST'`)
        .and.to.contain(`${stock.url}/api/products`)
        .and.to.contain('Browser lamp');
      const product = JSON.parse(created.body) as { id: number; name: string };
      expect(product).to.include({ name: 'Browser lamp' });
      expect(product.id).to.be.a('number');

      const read = await tryItOut(page, '#operations-Products-getProduct', async (block) => {
        await block.locator('tr[data-param-name="id"] input').fill(String(product.id));
      });
      expect(read.status).to.equal('200');
      expect(read.requestUrl).to.equal(`${stock.url}/api/products/${product.id}`);
      expect(JSON.parse(read.body)).to.deep.equal({
        id: product.id,
        name: 'Browser lamp',
        description: 'Made in Chromium',
        price: 12.5,
        quantityInStock: 3,
        reservedQuantity: 0,
        availableQuantity: 3,
        sku: null,
        backorderLimit: 0,
        backorderedQuantity: 0,
        lowStockThreshold: 0,
        stockState: 'in',
        committedQuantity: 0,
        qualityControlQuantity: 0,
        damagedQuantity: 0,
      });

      await page.screenshot({ path: join(ARTIFACTS, 'stock-swagger.png'), fullPage: true });
      // The part a reader of docs/stock-api.md wants to see: the request body, Execute, and what came back.
      const post = page.locator('#operations-Products-createProduct');
      await post
        .locator('.opblock-section')
        .first()
        .evaluate((section: PageElement) => section.scrollIntoView());
      const top = (await post.locator('.opblock-section').first().boundingBox())!;
      const bottom = (await post.locator('.live-responses-table').first().boundingBox())!;
      await page.screenshot({
        path: join(ARTIFACTS, 'stock-swagger-post.png'),
        clip: {
          x: top.x,
          y: top.y,
          width: top.width,
          height: Math.min(1600 - top.y, bottom.y + bottom.height - top.y),
        },
      });
      await expectNoTrouble(trouble, foreign);
    } finally {
      await close();
    }
  });

  it('greets a typed name through the sample app page', async () => {
    const { page, foreign, trouble, close } = await openOffline(browser, sampleOrigin);
    try {
      await page.goto(`${sampleOrigin}/swagger`);
      await page.locator('.opblock-tag').first().waitFor();
      expect(await groups(page)).to.deep.equal(['WeatherForecast', 'User']);

      const greeted = await tryItOut(page, '[id^="operations-User-"]', async (block) => {
        await block.locator('tr[data-param-name="name"] input').fill('Zoë');
      });
      expect(greeted.status).to.equal('200');
      expect(greeted.requestUrl).to.equal(`${sampleOrigin}/api/user/greet/Zo%C3%AB`);
      expect(greeted.body).to.contain('Zoë');

      await page.screenshot({ path: join(ARTIFACTS, 'sample-swagger.png'), fullPage: true });
      await expectNoTrouble(trouble, foreign);
    } finally {
      await close();
    }
  });
});
