import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  type BackOfficeSystem,
  openGatewayContext,
  seriousViolations,
  signInAt,
  type StaffUser,
  startBackOfficeSystem,
  tabTo,
} from './back-office-support';
import { ARTIFACTS, expectNoTrouble, launchChromium } from './chromium';

const CLERK: StaffUser = { username: 'clerk', password: 'a clerk’s long password', role: 'stock-clerk' };
const MANAGER: StaffUser = { username: 'manager', password: 'a manager’s long password', role: 'order-manager' };

describe('the back office in headless Chromium, through the gateway', function () {
  this.timeout(180_000);
  let browser: Browser;
  let system: BackOfficeSystem;
  let gatewayUrl: string;
  const name = `Brass lamp ${randomBytes(3).toString('hex')}`;

  before(async function () {
    browser = await launchChromium(this);
    system = await startBackOfficeSystem([CLERK, MANAGER]);
    gatewayUrl = system.gatewayUrl;
    const created = await system.stockApi('/api/products', {
      method: 'POST',
      body: JSON.stringify({ name, price: 24.5, quantityInStock: 5 }),
    });
    expect(created.status).to.equal(201);
  });
  after(async () => {
    await browser?.close();
    await system?.stop();
  });

  const openContext = () => openGatewayContext(browser, gatewayUrl);
  const signIn = (page: Page, user: StaffUser) => signInAt(page, gatewayUrl, user);

  it('signs a clerk in, finds a product, adjusts its stock with a reason by keyboard alone, and signs out', async () => {
    const { context, page, trouble, foreign } = await openContext();
    try {
      const served = await page.request.get(`${gatewayUrl}/admin/`);
      const policy = served.headers()['content-security-policy'];
      expect(policy).to.include("script-src 'self'").and.include("frame-ancestors 'none'");
      await signIn(page, CLERK);
      expect(new URL(page.url()).pathname).to.equal('/admin/');

      await page.getByRole('searchbox', { name: 'Search' }).fill(name);
      await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
      await page.getByRole('link', { name }).waitFor();
      expect(await seriousViolations(page), 'Products').to.deep.equal([]);
      await page.screenshot({ path: join(ARTIFACTS, 'back-office-products.png'), fullPage: true });
      await page.getByRole('link', { name }).click();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      const states = ['On hand', 'Reserved', 'Committed', 'Quality control', 'Damaged', 'Available', 'Incoming'];
      for (const state of states) await page.getByRole('columnheader', { name: state, exact: true }).waitFor();
      const level = page.getByRole('row', { name: /^default/ });
      expect(await level.getByRole('cell').allInnerTexts()).to.deep.equal(['5', '0', '0', '0', '0', '5', '0']);

      const form = page.getByRole('form', { name: 'Adjust stock' });
      await tabTo(page, 'Location');
      await page.keyboard.press('Tab');
      await page.keyboard.type('3');
      await page.keyboard.press('Tab');
      // A closed select takes the first option starting with what is typed: "received".
      await page.keyboard.type('rec');
      await page.keyboard.press('Tab');
      await page.keyboard.type('delivery 77');
      await page.keyboard.press('Enter');
      await form.getByRole('status').filter({ hasText: 'Applied +3 (received).' }).waitFor();
      await level.getByRole('cell').first().filter({ hasText: /^8$/ }).waitFor();
      expect(await level.getByRole('cell').allInnerTexts()).to.deep.equal(['8', '0', '0', '0', '0', '8', '0']);
      const newest = page.getByRole('region', { name: 'Ledger' }).getByRole('row').nth(1);
      await newest.filter({ hasText: 'delivery 77' }).waitFor();
      expect((await newest.getByRole('cell').allInnerTexts()).slice(1)).to.deep.equal([
        'adjusted',
        'default',
        '3',
        'received',
        'delivery 77',
        CLERK.username,
      ]);

      // A refusal shows where the action was, with the API's detail; nothing changes.
      await page.getByLabel('Change', { exact: true }).fill('-100');
      await form.getByRole('button', { name: 'Apply' }).click();
      await form.getByRole('alert').waitFor();
      expect(await form.getByRole('alert').innerText()).to.match(/available/i);
      // Chromium logs the refused request itself: that error, and no other.
      expect(trouble.consoleErrors.splice(0)).to.deep.equal([
        'Failed to load resource: the server responded with a status of 409 (Conflict)',
      ]);
      expect(await seriousViolations(page), 'the product').to.deep.equal([]);
      await page.screenshot({ path: join(ARTIFACTS, 'back-office-product.png'), fullPage: true });

      await page.getByRole('button', { name: 'Sign out' }).click();
      // The issuer asks; its Sign out ends the session and sends the browser back to the app.
      await page.getByRole('heading', { name: 'Sign out?' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('You have signed out.').waitFor();
      expect(new URL(page.url()).pathname).to.equal('/admin/');
      expect(await seriousViolations(page), 'signed out').to.deep.equal([]);
      await page.screenshot({ path: join(ARTIFACTS, 'back-office-signed-out.png'), fullPage: true });
      // Signed out for real: signing in again asks for the password.
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByLabel('Password').waitFor();
      const stored = String(
        await page.evaluate('JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)])'),
      );
      expect(stored).not.to.include('access_token').and.not.to.include('refresh_token').and.not.to.include('eyJ');
      await expectNoTrouble(trouble, foreign);
    } finally {
      await context.close();
    }
  });

  it('shows an order manager the levels but not Adjust stock: the token grants no stock:write', async () => {
    const { context, page, trouble, foreign } = await openContext();
    try {
      await signIn(page, MANAGER);
      await page.getByRole('searchbox', { name: 'Search' }).fill(name);
      await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
      await page.getByRole('link', { name }).click();
      await page.getByRole('columnheader', { name: 'On hand' }).waitFor();
      await page.getByRole('region', { name: 'Ledger' }).getByRole('row').nth(1).waitFor();
      expect(await page.getByRole('form', { name: 'Adjust stock' }).count()).to.equal(0);
      expect(await page.getByRole('button', { name: 'Apply' }).count()).to.equal(0);
      await page.getByRole('link', { name: 'Low stock' }).click();
      await page.getByRole('heading', { name: 'Low stock' }).waitFor();
      expect(await seriousViolations(page), 'Low stock').to.deep.equal([]);
      await expectNoTrouble(trouble, foreign);
    } finally {
      await context.close();
    }
  });
});
