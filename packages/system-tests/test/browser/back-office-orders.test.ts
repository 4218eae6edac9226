import { createScratchVhost, type ScratchVhost } from '@platform/test-kit';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { jsonAnswers, runReadmeWalkthrough, startWholeSystem, type WholeSystem } from '../support';
import {
  addUser,
  type GatewayContext,
  openGatewayContext,
  seriousViolations,
  signInAt,
  signOut,
  type StaffUser,
} from './back-office-support';
import { ARTIFACTS, expectNoTrouble, launchChromium } from './chromium';

/** Ships and refunds: `admin` holds stock:fulfil and orders:refund (an order-manager alone may not ship). */
const HEAD: StaffUser = { username: 'head', password: 'the head of the shop’s long password', role: 'admin' };
const CLERK: StaffUser = { username: 'clerk', password: 'a clerk’s long password', role: 'stock-clerk' };

describe('the back office’s orders in headless Chromium, through pnpm start:system', function () {
  this.timeout(300_000);
  let browser: Browser;
  let vhost: ScratchVhost;
  let data: string;
  let system: WholeSystem | undefined;
  let gateway: string;
  let orderId: string;

  before(async function () {
    browser = await launchChromium(this);
    vhost = await createScratchVhost(this);
    data = mkdtempSync(join(tmpdir(), 'back-office-orders-'));
    // Staff made with identity:add-user before the first start (start:system then makes no admin of its own).
    for (const user of [HEAD, CLERK]) addUser(join(data, 'identity-users.json'), user);
    // start:system builds the back office when its build is missing or stale, and the gateway serves it.
    system = await startWholeSystem({ AMQP_URL: vhost.url, DATA_DIR: data });
    gateway = system.gateway;
    // The README's walkthrough places an order for 2 lamps (49.00) and pays it at the offline provider; it stops
    // before its shipment, which the browser makes.
    const answers = jsonAnswers<{ id?: string; status?: string; committedQuantity?: number }>(
      await runReadmeWalkthrough(gateway, data, {
        payments: `http://localhost:${system.ports.PAYMENTS_PORT}`,
        until: '/api/shipments',
      }),
    );
    expect(answers.map((answer) => answer.status ?? answer.committedQuantity)).to.deep.equal(['reserved', 'paid', 2]);
    orderId = answers[0]!.id!;
  });
  after(async () => {
    await browser?.close();
    await system?.process.stop('SIGTERM');
    await vhost?.drop();
    if (data) rmSync(data, { recursive: true, force: true });
  });

  const screen = async (page: Page, name: string) => {
    expect(await seriousViolations(page), name).to.deep.equal([]);
    await page.screenshot({ path: join(ARTIFACTS, `back-office-${name}.png`), fullPage: true });
  };
  /** The value a fact list (dt/dd) of a region shows for `term`. */
  const fact = (region: Locator, term: string) => region.locator(`dt:text-is("${term}") + dd`);

  it('finds a paid order under Orders, ships it, records a return with a disposition, refunds it, and signs out', async () => {
    const { context, page, trouble, foreign }: GatewayContext = await openGatewayContext(browser, gateway);
    try {
      await signInAt(page, gateway, HEAD);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Orders' }).click();
      await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
      // Paid orders first: those waiting to ship.
      expect(await page.getByLabel('Status').inputValue()).to.equal('paid');
      const link = page.getByRole('link', { name: orderId });
      await link.waitFor();
      expect(
        await page
          .getByRole('row', { name: new RegExp(orderId) })
          .getByRole('cell')
          .allInnerTexts(),
      ).to.include.members(['demo', 'paid', '2 × Reading lamp', '€49.00']);
      await screen(page, 'orders');
      await page.getByLabel('Status').selectOption('shipped');
      await page.getByText('No shipped order.').waitFor();
      await page.getByLabel('Status').selectOption('paid');
      await link.click();

      await page.getByRole('heading', { name: `Order ${orderId}` }).waitFor();
      const lines = page.getByRole('region', { name: 'Lines' });
      const line = lines.getByRole('row', { name: /Reading lamp/ });
      expect(await line.getByRole('cell').allInnerTexts()).to.deep.equal([
        '2',
        '€24.50',
        '€49.00',
        'default: 2',
        '0',
        '0',
      ]);
      const payment = page.getByRole('region', { name: 'Payment' });
      expect(await fact(payment, 'Amount').innerText()).to.equal('€49.00');
      expect(await fact(payment, 'Captured').innerText()).to.equal('€0.00');
      // Paid, nothing shipped: it may ship, but nothing came back and nothing was captured to refund.
      const actions = page.getByRole('group', { name: 'Actions' });
      expect(await actions.getByRole('button').allInnerTexts()).to.deep.equal(['Ship']);
      await screen(page, 'order');

      await actions.getByRole('button', { name: 'Ship', exact: true }).click();
      const ship = page.getByRole('form', { name: 'Ship' });
      await ship.getByLabel('Location').selectOption({ label: 'default' });
      await ship.getByLabel('Quantity').fill('2');
      await screen(page, 'ship');
      await ship.getByRole('button', { name: 'Confirm shipment' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /^Shipment [\w-]+ recorded: 2 units\./ })
        .waitFor();
      const shipments = page.getByRole('region', { name: 'Shipments' });
      await shipments.getByRole('cell', { name: '2 × Reading lamp from default' }).waitFor();
      // Sales hears of the shipment by its event, then captures the payment: the page reads the order until it shows.
      await fact(payment, 'Captured').filter({ hasText: '€49.00' }).waitFor({ timeout: 60_000 });
      expect(await line.getByRole('cell').allInnerTexts()).to.deep.equal([
        '2',
        '€24.50',
        '€49.00',
        'default: 2',
        '2',
        '0',
      ]);
      expect(await actions.getByRole('button').allInnerTexts()).to.deep.equal(['Record return', 'Refund']);

      await actions.getByRole('button', { name: 'Record return' }).click();
      const returned = page.getByRole('form', { name: 'Record return' });
      await returned.getByLabel('Quantity').fill('1');
      await returned.getByLabel('Disposition').selectOption('damaged');
      await returned.getByLabel('Location').selectOption({ label: 'default' });
      await screen(page, 'return');
      await returned.getByRole('button', { name: 'Confirm return' }).click();
      await page
        .getByRole('region', { name: 'Returns' })
        .getByRole('cell', { name: '1 × Reading lamp to default, damaged' })
        .waitFor();
      await line.getByRole('cell').last().filter({ hasText: /^1$/ }).waitFor({ timeout: 60_000 });

      await actions.getByRole('button', { name: 'Refund', exact: true }).click();
      const refund = page.getByRole('form', { name: 'Refund' });
      // More than was captured: sales refuses, and its detail shows in the form.
      await refund.getByLabel('Amount').fill('100');
      await refund.getByLabel('Reason').fill('One lamp came back broken');
      await refund.getByRole('button', { name: 'Confirm refund' }).click();
      await refund.getByRole('alert').waitFor();
      expect(await refund.getByRole('alert').innerText()).to.match(/49(\.00)? left to refund/);
      expect(trouble.consoleErrors.splice(0)).to.deep.equal([
        'Failed to load resource: the server responded with a status of 409 (Conflict)',
      ]);
      await refund.getByLabel('Amount').fill('24.50');
      await screen(page, 'refund');
      await refund.getByRole('button', { name: 'Confirm refund' }).click();
      const refunds = page.getByRole('region', { name: 'Refunds' });
      const made = refunds.getByRole('row', { name: /One lamp came back broken/ });
      await made.waitFor();
      // The provider's webhook settles it; the page reads the order until it does.
      await made.getByRole('cell', { name: 'succeeded' }).waitFor({ timeout: 60_000 });
      expect((await made.getByRole('cell').allInnerTexts()).slice(1)).to.deep.equal([
        '€24.50',
        'One lamp came back broken',
        'succeeded',
      ]);
      await fact(payment, 'Refunded').filter({ hasText: '€24.50' }).waitFor();
      await screen(page, 'order-refunded');

      await signOut(page);
      await expectNoTrouble(trouble, foreign);
    } finally {
      await context.close();
    }
  });

  it('never shows a stock clerk Refund', async () => {
    const { context, page, trouble, foreign } = await openGatewayContext(browser, gateway);
    try {
      await signInAt(page, gateway, CLERK);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Orders' }).click();
      await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
      await page.getByLabel('Status').selectOption('all');
      // Sales shows orders:read alone the orders its holder placed: a clerk placed none.
      await page.getByText('No order.').waitFor();
      await page.goto(`${gateway}/admin/orders/${orderId}`);
      await page.getByRole('heading', { name: `Order ${orderId}` }).waitFor();
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').innerText()).to.include(orderId);
      expect(await page.getByRole('button', { name: 'Refund' }).count()).to.equal(0);
      await screen(page, 'order-clerk');
      expect(trouble.consoleErrors.splice(0)).to.deep.equal([
        'Failed to load resource: the server responded with a status of 404 (Not Found)',
      ]);
      await expectNoTrouble(trouble, foreign);
    } finally {
      await context.close();
    }
  });
});
