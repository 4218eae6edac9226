import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  type BackOfficeSystem,
  openGatewayContext,
  seriousViolations,
  signInAt,
  signOut,
  startBackOfficeSystem,
  tabTo,
} from './back-office-support';
import { ARTIFACTS, expectNoTrouble, launchChromium } from './chromium';

const CLERK = { username: 'stock-clerk', password: 'a stock clerk’s long password', role: 'stock-clerk' };
const MANAGER = { username: 'order-manager', password: 'an order manager’s long password', role: 'order-manager' };
/** The states of a level, in the order the product page's table shows them. */
const STATES = ['On hand', 'Reserved', 'Committed', 'Quality control', 'Damaged', 'Available', 'Incoming'];

describe('the back office’s stock screens in headless Chromium, through the gateway', function () {
  this.timeout(240_000);
  let browser: Browser;
  let system: BackOfficeSystem;
  const tag = randomBytes(3).toString('hex');
  const kettle = `Copper kettle ${tag}`;
  let kettleId: number;

  before(async function () {
    browser = await launchChromium(this);
    system = await startBackOfficeSystem([CLERK, MANAGER]);
    const room = await system.stockApi('/api/locations', {
      method: 'POST',
      body: JSON.stringify({ code: 'back-room', name: 'Back room', priority: 2 }),
    });
    expect(room.status, await room.clone().text()).to.equal(201);
    const created = await system.stockApi('/api/products', {
      method: 'POST',
      body: JSON.stringify({ name: kettle, price: 31, quantityInStock: 40 }),
    });
    expect(created.status).to.equal(201);
    kettleId = ((await created.json()) as { id: number }).id;
    // More movements than a page of the ledger holds (20), the newest of them an adjustment of +21.
    for (let step = 1; step <= 21; step++) {
      const adjusted = await system.stockApi(`/api/products/${kettleId}/stock-adjustments`, {
        method: 'POST',
        body: JSON.stringify({ delta: step % 2 === 0 ? -1 : 1, reason: `step ${step}` }),
      });
      expect(adjusted.status).to.equal(200);
    }
  });
  after(async () => {
    await browser?.close();
    await system?.stop();
  });

  /** A screen as it is: no serious or critical axe-core violation, and its screenshot in test-artifacts/. */
  async function screen(page: Page, name: string): Promise<void> {
    expect(await seriousViolations(page), name).to.deep.equal([]);
    await page.screenshot({ path: join(ARTIFACTS, `back-office-stock-${name}.png`), fullPage: true });
  }

  const backRoomId = async () => {
    const locations = (await (await system.stockApi('/api/locations')).json()) as { id: number; code: string }[];
    return locations.find((location) => location.code === 'back-room')!.id;
  };

  // A page's heading shows before its data: wait for the row itself, then read it.
  const cellsOf = async (row: Locator) => {
    await row.waitFor();
    return row.getByRole('cell').allInnerTexts();
  };

  it('lets a stock clerk work products, stock, states, the ledger, transfers and low stock, then sign out', async () => {
    const { context, page, trouble, foreign } = await openGatewayContext(browser, system.gatewayUrl);
    try {
      await signInAt(page, system.gatewayUrl, CLERK);

      // Products: find one with Search.
      await page.getByRole('searchbox', { name: 'Search' }).fill(kettle);
      await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
      await page.getByRole('link', { name: kettle }).waitFor();
      await screen(page, 'products');

      // Create a product, low from the start: 2 available under a threshold of 5.
      const teapot = `Iron teapot ${tag}`;
      await page.getByRole('link', { name: 'New product', exact: true }).click();
      const creating = page.getByRole('form', { name: 'New product' });
      await creating.getByLabel('Name', { exact: true }).fill(teapot);
      await creating.getByLabel('SKU', { exact: true }).fill(`TEA-${tag}`);
      await creating.getByLabel('Price', { exact: true }).fill('18.50');
      await creating.getByLabel('Low-stock threshold', { exact: true }).fill('5');
      await creating.getByLabel('Quantity in stock', { exact: true }).fill('2');
      await screen(page, 'new-product');
      await creating.getByRole('button', { name: 'Create product' }).click();
      await page.getByRole('heading', { name: teapot, level: 1 }).waitFor();
      const teapotUrl = page.url();

      // Edit it while someone else does: the save answers 412, the page says so and Reload brings the new version.
      await page.getByRole('button', { name: 'Edit product' }).click();
      const editing = page.getByRole('form', { name: 'Edit product' });
      await editing.getByLabel('Price', { exact: true }).fill('19.90');
      const teapotId = Number(/\/products\/(\d+)$/.exec(teapotUrl)![1]);
      const elsewhere = await system.stockApi(`/api/products/${teapotId}`, {
        method: 'PUT',
        body: JSON.stringify({ name: teapot, price: 18.5, quantityInStock: 2, description: 'Cast iron, 0.8 l' }),
      });
      expect(elsewhere.status).to.equal(200);
      await editing.getByRole('button', { name: 'Save product' }).click();
      const changed = editing.getByRole('alert');
      await changed.waitFor();
      expect(await changed.innerText()).to.match(/changed since you opened it/);
      // Chromium logs the refused request itself: that error, and no other.
      expect(trouble.consoleErrors.splice(0)).to.deep.equal([
        'Failed to load resource: the server responded with a status of 412 (Precondition Failed)',
      ]);
      await screen(page, 'product-changed');
      await editing.getByRole('button', { name: 'Reload' }).click();
      await page.getByText('Cast iron, 0.8 l').first().waitFor();
      expect(await editing.getByLabel('Description', { exact: true }).inputValue()).to.equal('Cast iron, 0.8 l');
      expect(await editing.getByLabel('Price', { exact: true }).inputValue()).to.equal('18.5');
      await editing.getByLabel('Price', { exact: true }).fill('19.90');
      await editing.getByRole('button', { name: 'Save product' }).click();
      await editing.waitFor({ state: 'detached' });
      const saved = (await (await system.stockApi(`/api/products/${teapotId}`)).json()) as Record<string, unknown>;
      expect(saved).to.include({ price: 19.9, description: 'Cast iron, 0.8 l', quantityInStock: 2 });

      // The kettle's page: every state per location, then an adjustment at a location by keyboard alone.
      await page.getByRole('link', { name: 'Products', exact: true }).click();
      await page.getByRole('searchbox', { name: 'Search' }).fill(kettle);
      await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
      await page.getByRole('link', { name: kettle }).click();
      await page.getByRole('heading', { name: kettle, level: 1 }).waitFor();
      for (const state of STATES) await page.getByRole('columnheader', { name: state, exact: true }).waitFor();
      const level = page.getByRole('row', { name: /^default/ });
      // 40, then +1 -1 … +1 over 21 steps: 41.
      expect(await cellsOf(level)).to.deep.equal(['41', '0', '0', '0', '0', '41', '0']);
      const adjust = page.getByRole('form', { name: 'Adjust stock' });
      await tabTo(page, 'Location', adjust);
      await page.keyboard.press('Tab');
      await page.keyboard.type('-3');
      await page.keyboard.press('Tab');
      // A closed select takes the first option starting with what is typed: "damaged".
      await page.keyboard.type('dam');
      await page.keyboard.press('Tab');
      await page.keyboard.type('dropped in aisle 4');
      await page.keyboard.press('Enter');
      await adjust.getByRole('status').filter({ hasText: 'Applied -3 (damaged).' }).waitFor();
      await level.getByRole('cell').first().filter({ hasText: /^38$/ }).waitFor();

      // Move units between states: 4 available into quality control.
      const move = page.getByRole('form', { name: 'Move units between states' });
      await move.getByLabel('From state').selectOption({ label: 'Available' });
      await move.getByLabel('To state').selectOption({ label: 'Quality control' });
      await move.getByLabel('Quantity').fill('4');
      await move.getByLabel('At location').selectOption({ label: 'default' });
      await move.getByLabel('Reason').selectOption('returned');
      await move.getByRole('button', { name: 'Move units' }).click();
      await move.getByRole('status').filter({ hasText: 'Moved 4 from Available to Quality control.' }).waitFor();
      await level.getByRole('cell').nth(3).filter({ hasText: /^4$/ }).waitFor();
      expect(await cellsOf(level)).to.deep.equal(['38', '0', '0', '4', '0', '34', '0']);
      // More than quality control holds is refused where the action was, with the API's detail.
      await move.getByLabel('From state').selectOption({ label: 'Quality control' });
      await move.getByLabel('To state').selectOption({ label: 'Damaged' });
      await move.getByLabel('Quantity').fill('9');
      await move.getByRole('button', { name: 'Move units' }).click();
      await move.getByRole('alert').waitFor();
      expect(await move.getByRole('alert').innerText()).to.match(/4/);
      expect(trouble.consoleErrors.splice(0)).to.deep.equal([
        'Failed to load resource: the server responded with a status of 409 (Conflict)',
      ]);

      // The ledger, newest first: the state change, the adjustment, then the API's steps, 20 to a page.
      const ledger = page.getByRole('region', { name: 'Ledger' });
      const rows = ledger.getByRole('row');
      await rows.nth(1).filter({ hasText: 'state-changed' }).waitFor();
      expect((await cellsOf(rows.nth(1))).slice(1)).to.deep.equal([
        'state-changed',
        'default',
        '0',
        'returned',
        '',
        CLERK.username,
      ]);
      expect((await cellsOf(rows.nth(2))).slice(1)).to.deep.equal([
        'adjusted',
        'default',
        '-3',
        'damaged',
        'dropped in aisle 4',
        CLERK.username,
      ]);
      expect(await rows.count()).to.equal(21);
      expect((await cellsOf(rows.nth(3)))[5]).to.equal('step 21');
      await screen(page, 'product');
      await ledger.getByRole('button', { name: 'Older movements' }).click();
      await rows.nth(1).filter({ hasText: 'step 3' }).waitFor();
      // 21 steps and the creation: 23 movements and the 2 above, 20 of them on the first page.
      expect((await rows.allInnerTexts()).slice(1).map((row) => /step \d+|created/.exec(row)?.[0])).to.deep.equal([
        'step 3',
        'step 2',
        'step 1',
        'created',
      ]);
      expect(await ledger.getByRole('button', { name: 'Older movements' }).count()).to.equal(0);
      await ledger.getByRole('button', { name: 'Newer movements' }).click();
      await rows.nth(1).filter({ hasText: 'state-changed' }).waitFor();

      // Transfers: one sent and received from the product's transfers, another sent there and cancelled from the
      // list of every transfer, in transit first.
      await page.getByRole('link', { name: 'Transfers of this product' }).click();
      await page.getByRole('heading', { name: 'Transfers', level: 1 }).waitFor();
      const newTransfer = page.getByRole('form', { name: 'New transfer' });
      expect(await newTransfer.getByLabel('Product', { exact: true }).inputValue()).to.equal(String(kettleId));
      const send = async (quantity: number, reference: string) => {
        await newTransfer.getByLabel('From', { exact: true }).selectOption({ label: 'default' });
        await newTransfer.getByLabel('To', { exact: true }).selectOption({ label: 'back-room' });
        await newTransfer.getByLabel('Quantity', { exact: true }).fill(String(quantity));
        await newTransfer.getByLabel('Reference', { exact: true }).fill(reference);
        await newTransfer.getByRole('button', { name: 'Create transfer' }).click();
        await page.getByRole('row', { name: new RegExp(`^${reference} in-transit`) }).waitFor();
      };
      await send(5, `restock-${tag}`);
      await send(2, `mistake-${tag}`);
      const ofKettle = page.getByRole('region', { name: `Transfers of product ${kettleId}` });
      await ofKettle
        .getByRole('row', { name: new RegExp(`^restock-${tag}`) })
        .getByRole('button', { name: 'Receive' })
        .click();
      await ofKettle.getByRole('row', { name: new RegExp(`^restock-${tag} received`) }).waitFor();

      await ofKettle.getByRole('link', { name: 'All transfers' }).click();
      const list = page.getByRole('region', { name: 'All transfers' });
      await list.getByRole('row', { name: new RegExp(`^mistake-${tag} in-transit`) }).waitFor();
      await screen(page, 'transfers');
      // Each row's status: its first cell (the reference is the row's header).
      const statuses = async () =>
        Promise.all((await list.getByRole('row').all()).slice(1).map(async (row) => (await cellsOf(row))[0]!));
      /** The statuses from the first that is not in transit on: none of them should be. */
      const fromFirstEnded = (shown: string[]) => {
        const first = shown.findIndex((status) => status !== 'in-transit');
        return first === -1 ? [] : shown.slice(first);
      };
      expect(fromFirstEnded(await statuses()), 'in transit first').not.to.include('in-transit');
      await list
        .getByRole('row', { name: new RegExp(`^mistake-${tag}`) })
        .getByRole('button', { name: 'Cancel transfer' })
        .click();
      await list.getByRole('row', { name: new RegExp(`^mistake-${tag} cancelled`) }).waitFor();
      expect(fromFirstEnded(await statuses()), 'in transit first').not.to.include('in-transit');
      expect(
        await list.getByRole('row', { name: new RegExp(`^(restock|mistake)-${tag} in-transit`) }).count(),
      ).to.equal(0);
      // Sending more than is available is refused where the action was.
      await newTransfer.getByLabel('Product', { exact: true }).fill(String(kettleId));
      await newTransfer.getByLabel('Quantity', { exact: true }).fill('1000');
      await newTransfer.getByLabel('Reference', { exact: true }).fill(`too-many-${tag}`);
      await newTransfer.getByRole('button', { name: 'Create transfer' }).click();
      await newTransfer.getByRole('alert').waitFor();
      expect(await newTransfer.getByRole('alert').innerText()).to.match(/available/i);
      expect(trouble.consoleErrors.splice(0)).to.deep.equal([
        'Failed to load resource: the server responded with a status of 409 (Conflict)',
      ]);
      await list
        .getByRole('row', { name: new RegExp(`^restock-${tag}`) })
        .getByRole('link', { name: String(kettleId) })
        .click();
      await page.getByRole('heading', { name: kettle, level: 1 }).waitFor();
      const room = page.getByRole('row', { name: /^back-room/ });
      expect(await cellsOf(room)).to.deep.equal(['5', '0', '0', '0', '0', '5', '0']);
      expect(await cellsOf(level)).to.deep.equal(['33', '0', '0', '4', '0', '29', '0']);

      // Low stock: the teapot, linking to its page.
      await page.getByRole('link', { name: 'Low stock', exact: true }).click();
      await page.getByRole('heading', { name: 'Low stock' }).waitFor();
      const low = page.getByRole('row', { name: new RegExp(`^${teapot}`) });
      expect(await cellsOf(low)).to.deep.equal([teapot, `TEA-${tag}`, '2', '2', '5']);
      await screen(page, 'low-stock');
      await low.getByRole('link', { name: teapot }).click();
      await page.getByRole('heading', { name: teapot, level: 1 }).waitFor();

      await signOut(page);
      await expectNoTrouble(trouble, foreign);
    } finally {
      await context.close();
    }
  });

  it('shows an order manager, who holds no stock:write, the stock but none of the actions that change it', async () => {
    const sent = await system.stockApi('/api/stock-transfers', {
      method: 'POST',
      body: JSON.stringify({
        productId: kettleId,
        fromLocationId: 1,
        toLocationId: await backRoomId(),
        quantity: 1,
        reference: `watched-${tag}`,
      }),
    });
    expect(sent.status, await sent.clone().text()).to.equal(201);
    const { context, page, trouble, foreign } = await openGatewayContext(browser, system.gatewayUrl);
    try {
      await signInAt(page, system.gatewayUrl, MANAGER);
      await page.getByRole('searchbox', { name: 'Search' }).fill(kettle);
      await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
      await page.getByRole('link', { name: kettle }).waitFor();
      expect(await page.getByRole('link', { name: 'New product' }).count()).to.equal(0);
      await page.getByRole('link', { name: kettle }).click();
      await page.getByRole('region', { name: 'Ledger' }).getByRole('row').nth(1).waitFor();
      for (const action of ['Edit product', 'Apply', 'Move units'])
        expect(await page.getByRole('button', { name: action }).count(), action).to.equal(0);
      await page.getByRole('link', { name: 'Transfers of this product' }).click();
      await page.getByRole('row', { name: new RegExp(`^watched-${tag} in-transit`) }).waitFor();
      expect(await page.getByRole('form', { name: 'New transfer' }).count()).to.equal(0);
      expect(await page.getByRole('button', { name: 'Receive' }).count()).to.equal(0);
      // Every transfer, from the navigation: the one in transit, with no action either.
      await page.getByRole('link', { name: 'Transfers', exact: true }).click();
      await page
        .getByRole('region', { name: 'All transfers' })
        .getByRole('row', { name: new RegExp(`^watched-${tag} in-transit`) })
        .waitFor();
      expect(await page.getByRole('form', { name: 'New transfer' }).count()).to.equal(0);
      expect(await page.getByRole('button', { name: 'Receive' }).count()).to.equal(0);
      expect(await seriousViolations(page), 'Transfers, read only').to.deep.equal([]);
      await expectNoTrouble(trouble, foreign);
    } finally {
      await context.close();
    }
  });
});
