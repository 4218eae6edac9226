import { expectLedgersToSum, onOneStore, type OpenStockStore, type StockStoreUnderTest } from '@stock/domain/testing';
import { IdempotencyKeyReusedError, type UnitOfWork } from '@platform/kernel';
import {
  DEFAULT_IMPORT_SETTINGS,
  ExportProducts,
  exportCells,
  type ImportOptions,
  ImportProducts,
  type ImportProgress,
  type ImportRow,
  type ImportSettings,
  Locations,
  ReserveStock,
  UnreadableRow,
} from '@stock/application';
import { LocationDraft, type Product, ReservationRequest, SkuTakenError, type StockTransaction } from '@stock/domain';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { randomUUID } from 'node:crypto';
import { STORES } from './stores';

chai.use(chaiAsPromised);
const { expect } = chai;

async function* streamOf<T>(rows: readonly T[]): AsyncGenerator<T> {
  for (const row of rows) yield row;
}

/**
 * Import and export through the use cases, on a store: upserts by id and by
 * SKU, empty cells, locations, the imported movements the ledger sums, failed
 * rows that leave the others applied, atomic and dry runs, batches, the key,
 * and the round trip an export makes.
 */
function importAndExport(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  const clock = () => new Date();
  const importer = (settings: Partial<ImportSettings> = {}, unitOfWork?: UnitOfWork<StockTransaction>) =>
    new ImportProducts(unitOfWork ?? store.unitOfWork, clock, { ...DEFAULT_IMPORT_SETTINGS, ...settings });
  const importRows = async (
    rows: readonly (ImportRow | UnreadableRow)[],
    options: ImportOptions = {},
    settings: Partial<ImportSettings> = {},
  ) => (await importer(settings).execute(streamOf(rows), options)).value;
  const all = async (): Promise<Product[]> => store.products.list({ after: 0, limit: 1000 });
  const bySku = async (sku: string) => (await store.products.findBySku(sku))!;
  const location = (code: string) =>
    new Locations(store.unitOfWork).create(LocationDraft.create({ code, name: `Location ${code}` }));
  const levels = async (p: Pick<Product, 'id'>) =>
    Object.fromEntries(((await store.stock.list(p.id)) ?? []).map((l) => [l.locationCode, l.onHand]));
  const movements = async (p: Pick<Product, 'id'>) =>
    (await store.movements.list(p.id, { after: 0, limit: 1000 })).map((m) => `${m.kind} ${m.quantityDelta}`);
  const exported = async () => {
    const rows: Required<ImportRow>[] = [];
    for await (const batch of new ExportProducts(store.unitOfWork).execute(2)) rows.push(...batch.map(exportCells));
    return rows;
  };

  onOneStore(open, (opened) => (store = opened));

  it('creates products, sets their on hand with an imported movement, and the ledger sums per location', async () => {
    const result = await importRows([
      { sku: 'TEA-1', name: 'Green tea', description: 'Sencha', price: '4.50', onHand: '12' },
      { name: 'Mug', price: '8', backorderLimit: '3', lowStockThreshold: '2' },
    ]);
    expect(result).to.deep.equal({ created: 2, updated: 0, unchanged: 0, failed: 0, errors: [] });
    const [tea, mug] = await all();
    expect(tea).to.include({ sku: 'TEA-1', name: 'Green tea', description: 'Sencha', quantityInStock: 12 });
    expect(tea!.price.toString()).to.equal('4.50');
    expect(mug).to.include({ sku: null, description: '', quantityInStock: 0, backorderLimit: 3, lowStockThreshold: 2 });
    expect(await movements(tea!)).to.deep.equal(['created 0', 'imported 12']);
    await expectLedgersToSum(store, [tea!, mug!]);
  });

  it('writes one stock.level.changed per movement, sequence 1, 2, … per product, when webhook events are on', async () => {
    await store.outbox.claim(10_000, 60_000, Date.now()).then((rows) =>
      store.outbox.markPublished(
        rows.map((row) => row.id),
        Date.now(),
      ),
    );
    await importRows(
      [
        { sku: 'EVT-1', name: 'Kettle', price: '20', onHand: '3' },
        { sku: 'EVT-2', name: 'Pot', price: '9' },
        { sku: 'EVT-1', onHand: '5' },
      ],
      {},
      { webhookEvents: true },
    );
    const events = (await store.outbox.claim(10_000, 60_000, Date.now()))
      .filter((row) => row.type === 'stock.level.changed')
      .map((row) => (JSON.parse(row.payload) as { data: { sku: string; sequence: number; onHand: number } }).data);
    // The outbox hands them over by time and id (the ids derive from the movements'); the fan-out orders by sequence.
    const of = (sku: string) =>
      events
        .filter((e) => e.sku === sku)
        .map((e) => [e.sequence, e.onHand])
        .sort((a, b) => a[0]! - b[0]!);
    expect(of('EVT-1')).to.deep.equal([
      [1, 0],
      [2, 3],
      [3, 5],
    ]);
    expect(of('EVT-2')).to.deep.equal([[1, 0]]);
  });

  it('updates by id and by SKU, an empty cell leaving its field, and answers unchanged for a row that matches', async () => {
    await importRows([
      { sku: 'A-1', name: 'Alpha', description: 'First', price: '1.00', onHand: '5', lowStockThreshold: '1' },
      { name: 'Beta', description: 'Second', price: '2.00', onHand: '3' },
    ]);
    const [alpha, beta] = await all();
    const result = await importRows([
      { sku: 'a-1', name: '', price: '1.50' },
      { id: String(beta!.id), description: '', onHand: '7', sku: 'B-2' },
      { id: String(alpha!.id), name: 'Alpha', onHand: '5' },
      { sku: 'a-1', description: 'First', lowStockThreshold: '1', price: '1.5' },
    ]);
    expect(result).to.deep.equal({ created: 0, updated: 2, unchanged: 2, failed: 0, errors: [] });
    // Found ignoring case, the row's SKU is the product's from now on.
    expect(await bySku('A-1')).to.include({ id: alpha!.id, sku: 'a-1', name: 'Alpha', description: 'First' });
    expect((await bySku('A-1')).price.toString()).to.equal('1.50');
    expect(await store.products.findById(beta!.id)).to.include({
      sku: 'B-2',
      name: 'Beta',
      description: 'Second',
      quantityInStock: 7,
    });
    expect(await movements(beta!)).to.deep.equal(['created 0', 'imported 3', 'imported 4']);
    await expectLedgersToSum(store, [alpha!, beta!]);
  });

  it('sets on hand at the row’s location, the default one when it names none, and refuses an unknown code', async () => {
    await location('east');
    const result = await importRows([
      { sku: 'L-1', name: 'Lamp', price: '30', onHand: '2' },
      { sku: 'L-1', locationCode: 'east', onHand: '6' },
      { sku: 'L-1', locationCode: 'west', onHand: '1' },
    ]);
    expect(result).to.deep.equal({
      created: 1,
      updated: 1,
      unchanged: 0,
      failed: 1,
      errors: [{ row: 3, problems: ["locationCode: no location has the code 'west'"] }],
    });
    const lamp = await bySku('L-1');
    expect(await levels(lamp)).to.deep.equal({ default: 2, east: 6 });
    expect(lamp.quantityInStock).to.equal(8);
    await expectLedgersToSum(store, [lamp]);
  });

  it('reports each failed row with its number and every problem, and applies the others', async () => {
    await importRows([{ sku: 'TAKEN', name: 'Taken', price: '1' }]);
    const taken = await bySku('TAKEN');
    const result = await importRows([
      { name: 'Good', price: '1' },
      { name: ' ', price: '-1', onHand: '1.5', sku: 'bad sku!' },
      { description: 'No name, no price' },
      { id: '424242', name: 'Ghost' },
      { id: String(taken.id + 1000), sku: 'X' },
      new UnreadableRow(['line 6 is not JSON']),
      { name: 'Steals', price: '1', sku: 'taken' },
      { name: 'Also good', price: '2' },
    ]);
    expect(result).to.deep.include({ created: 2, updated: 1, unchanged: 0, failed: 5 });
    expect(result.errors.map((e) => e.row)).to.deep.equal([2, 3, 4, 5, 6]);
    expect(result.errors[0]!.problems).to.have.members([
      'sku: must be 1 to 64 characters of A-Z, a-z, 0-9, ".", "_" and "-"',
      'name: is required and must not be blank',
      'price: must be a decimal amount such as 12 or 12.50',
      'onHand: must be an integer from 0 to 2147483647',
    ]);
    expect(result.errors[1]!.problems).to.deep.equal([
      'name: is required for a new product',
      'price: is required for a new product',
    ]);
    expect(result.errors[2]!.problems).to.deep.equal(['id: no product has the id 424242']);
    expect(result.errors[4]!.problems).to.deep.equal(['line 6 is not JSON']);
    // Row 7 names the taken SKU, so it updates that product: a SKU is a product's key.
    expect(await bySku('TAKEN')).to.include({ id: taken.id, name: 'Steals', sku: 'taken' });
    const second = await importRows([
      { id: String(taken.id), sku: 'NEW' },
      { name: 'Dup', price: '1' },
    ]);
    expect(second.failed).to.equal(0);
    const good = (await all()).find((p) => p.name === 'Good')!;
    const refused = await importRows([
      { name: 'Another', price: '1' },
      { id: String(good.id), sku: 'new' },
    ]);
    expect(refused.errors).to.deep.equal([
      { row: 2, problems: [`sku: product ${taken.id} has the SKU 'NEW' (SKUs are compared ignoring case)`] },
    ]);
  });

  it('refuses on hand below what is held at the location, as an adjustment would', async () => {
    await importRows([{ sku: 'H-1', name: 'Held', price: '1', onHand: '5' }]);
    const held = await bySku('H-1');
    const reserve = new ReserveStock(store.unitOfWork, {
      clock,
      newId: randomUUID,
      defaultTtlSeconds: 900,
      allocation: 'priority',
    });
    await reserve.execute(
      'shop',
      ReservationRequest.create({ reference: 'r', lines: [{ productId: held.id, quantity: 3 }] }),
    );
    const result = await importRows([{ sku: 'H-1', onHand: '2' }]);
    expect(result.errors).to.deep.equal([
      {
        row: 1,
        problems: ['onHand: must be at least 3, the units held, committed, in quality control or damaged there'],
      },
    ]);
    expect((await bySku('H-1')).quantityInStock).to.equal(5);
  });

  it('fills backordered holds and raises low stock as any arrival does', async () => {
    await importRows([{ sku: 'B-1', name: 'Backordered', price: '1', backorderLimit: '5', lowStockThreshold: '4' }]);
    const product = await bySku('B-1');
    const reserve = new ReserveStock(store.unitOfWork, {
      clock,
      newId: randomUUID,
      defaultTtlSeconds: 900,
      allocation: 'priority',
    });
    const { reservation } = (
      await reserve.execute(
        'shop',
        ReservationRequest.create({
          reference: 'b',
          lines: [{ productId: product.id, quantity: 2 }],
          allowBackorder: true,
        }),
      )
    ).value;
    await importRows([{ sku: 'B-1', onHand: '3' }]);
    const after = await bySku('B-1');
    expect(after).to.include({ quantityInStock: 3, reservedQuantity: 2, backorderedQuantity: 0, availableQuantity: 1 });
    expect((await store.reservations.holdOf(reservation.id, product.id)).backordered).to.equal(0);
    expect(await movements(after)).to.deep.equal(['created 0', 'imported 3', 'backorder-filled 0']);
    await expectLedgersToSum(store, [after]);
    const events = async () => {
      const rows = await store.outbox.claim(10_000, 60_000, Date.now());
      await store.outbox.markPublished(
        rows.map((row) => row.id),
        Date.now(),
      );
      return rows
        .filter((row) => row.type.startsWith('stock.level.'))
        .map((row) => (JSON.parse(row.payload) as { data: unknown }).data);
    };
    await events();
    await importRows([{ sku: 'LOW', name: 'Low', price: '1', lowStockThreshold: '4', onHand: '10' }]);
    await importRows([{ sku: 'LOW', onHand: '2' }]);
    const low = await bySku('LOW');
    expect(await events()).to.deep.equal([{ productId: low.id, available: 2, threshold: 4 }]);
    expect(low.stockState).to.equal('low');
  });

  it('goes on past a row a store refuses in the middle of a batch, the batch’s other rows applied once', async () => {
    const refusing: UnitOfWork<StockTransaction> = {
      run: (work, options) =>
        store.unitOfWork.run(
          (tx) =>
            work({
              ...tx,
              products: Object.assign(Object.create(tx.products) as typeof tx.products, {
                add: async (...args: Parameters<typeof tx.products.add>) => {
                  const added = await tx.products.add(...args);
                  if (args[0].name === 'Refused') throw new SkuTakenError('REFUSED');
                  return added;
                },
                // The set-based write refuses the whole batch, which then runs a row at a time.
                addMany: async (...args: Parameters<typeof tx.products.addMany>) => {
                  const added = await tx.products.addMany(...args);
                  if (args[0].some(({ name }) => name === 'Refused')) throw new SkuTakenError('REFUSED');
                  return added;
                },
              }),
            }),
          options,
        ),
    };
    const rows = [
      { name: 'One', price: '1', onHand: '1' },
      { name: 'Refused', price: '1' },
      { name: 'Two', price: '1', onHand: '2' },
    ];
    const { value } = await importer({}, refusing).execute(streamOf(rows));
    expect(value).to.deep.equal({
      created: 2,
      updated: 0,
      unchanged: 0,
      failed: 1,
      errors: [
        { row: 2, problems: ["SKU_TAKEN: Another product has the SKU 'REFUSED' (SKUs are compared ignoring case)."] },
      ],
    });
    expect((await all()).map((p) => `${p.name} ${p.quantityInStock}`)).to.deep.equal(['One 1', 'Two 2']);
  });

  it('applies every row or none with atomic, and changes nothing in a dry run', async () => {
    const rows = [
      { sku: 'AT-1', name: 'First', price: '1', onHand: '4' },
      { sku: 'AT-2', name: 'Second', price: '1' },
      { sku: 'AT-3', price: '1' },
    ];
    expect(await importRows(rows, { atomic: true })).to.deep.equal({
      created: 0,
      updated: 0,
      unchanged: 0,
      failed: 1,
      errors: [{ row: 3, problems: ['name: is required for a new product'] }],
    });
    expect(await all()).to.deep.equal([]);
    expect(await importRows(rows.slice(0, 2), { dryRun: true })).to.deep.include({ created: 2, failed: 0 });
    expect(await importRows(rows.slice(0, 2), { dryRun: true, atomic: true })).to.deep.include({ created: 2 });
    expect(await all()).to.deep.equal([]);
    expect(await importRows(rows.slice(0, 2), { atomic: true })).to.deep.include({ created: 2, failed: 0 });
    const first = await bySku('AT-1');
    expect(await importRows([{ sku: 'AT-1', onHand: '9', name: 'Renamed' }], { dryRun: true })).to.deep.include({
      updated: 1,
    });
    expect(await bySku('AT-1')).to.include({ name: 'First', quantityInStock: 4, version: first.version });
    expect(await movements(first)).to.deep.equal(['created 0', 'imported 4']);
  });

  it('applies rows a batch at a time and reports progress every N rows', async () => {
    const rows = Array.from({ length: 7 }, (_, i) => ({
      sku: `N-${i}`,
      name: `Item ${i}`,
      price: '1',
      onHand: `${i}`,
    }));
    const progress: ImportProgress[] = [];
    const result = await importRows(
      [...rows.slice(0, 3), { name: 'Bad', price: 'free' }, ...rows.slice(3)],
      { onProgress: (p) => progress.push(p) },
      { batchSize: 3, progressEvery: 4 },
    );
    expect(result).to.deep.include({ created: 7, failed: 1 });
    expect(progress.map((p) => [p.rows, p.created, p.failed])).to.deep.equal([
      [4, 3, 1],
      [8, 6, 1],
    ]);
    expect((await all()).map((p) => p.quantityInStock)).to.deep.equal([0, 1, 2, 3, 4, 5, 6]);
  });

  it('answers a repeat of a key from its record, and refuses the key with another body', async () => {
    const idempotency = (fingerprint: string) => ({ scope: 'import', key: 'k-1', fingerprint: () => fingerprint });
    const rows = [{ name: 'Once', price: '1', onHand: '1' }];
    const first = await importer().execute(streamOf(rows), { idempotency: idempotency('body-a') });
    const again = await importer().execute(streamOf(rows), { idempotency: idempotency('body-a') });
    expect(first).to.deep.equal({
      value: { created: 1, updated: 0, unchanged: 0, failed: 0, errors: [] },
      replayed: false,
    });
    expect(again).to.deep.equal({ ...first, replayed: true });
    await expect(importer().execute(streamOf(rows), { idempotency: idempotency('body-b') })).to.be.rejectedWith(
      IdempotencyKeyReusedError,
    );
    expect(await all()).to.have.length(1);
  });

  it('exports one row per product and location in the import’s columns, and a re-import changes nothing', async () => {
    await location('east');
    await importRows([
      { sku: 'E-1', name: 'Exported, "quoted"', description: 'Line one\nline two', price: '3.10', onHand: '4' },
      { sku: 'E-1', locationCode: 'east', onHand: '2' },
      { name: 'No SKU', price: '0.99', backorderLimit: '1', lowStockThreshold: '3' },
      { name: 'Third', price: '7' },
    ]);
    const [e1, noSku, third] = await all();
    const rows = await exported();
    expect(rows).to.deep.equal([
      {
        id: String(e1!.id),
        sku: 'E-1',
        name: 'Exported, "quoted"',
        description: 'Line one\nline two',
        price: '3.10',
        locationCode: 'default',
        onHand: '4',
        backorderLimit: '0',
        lowStockThreshold: '0',
      },
      { ...rows[0]!, locationCode: 'east', onHand: '2' },
      {
        id: String(noSku!.id),
        sku: '',
        name: 'No SKU',
        description: '',
        price: '0.99',
        locationCode: 'default',
        onHand: '0',
        backorderLimit: '1',
        lowStockThreshold: '3',
      },
      { ...rows[2]!, id: String(third!.id), name: 'Third', price: '7.00', backorderLimit: '0', lowStockThreshold: '0' },
    ]);
    expect(await importRows(rows)).to.deep.equal({ created: 0, updated: 0, unchanged: 4, failed: 0, errors: [] });
  });
}

for (const { name, open } of STORES) describe(`Importing and exporting products ${name}`, () => importAndExport(open));
