import { ValidationError } from '@platform/kernel';
import { CreateProduct, GetProducts, SearchProducts, UpdateProduct } from '@stock/application';
import { Money, SkuTakenError } from '@stock/domain';
import { aProduct, onOneStore, type OpenStockStore, type StockStoreUnderTest } from '@stock/domain/testing';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { STORES } from './stores';

chai.use(chaiAsPromised);
const { expect } = chai;

/** The problems a ValidationError names, by field. */
async function problemsOf(promise: Promise<unknown>): Promise<Record<string, string[]>> {
  const error: unknown = await expect(promise).to.be.rejectedWith(ValidationError);
  return (error as ValidationError).errors;
}

/** Search by cursor, SKU lookups and SKUs taken, through the use cases on a store. */
function catalogueUseCases(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  let search: SearchProducts;
  const clock = () => new Date();
  const create = (overrides: Parameters<typeof aProduct>[0] = {}) =>
    new CreateProduct(store.unitOfWork, clock).execute(aProduct(overrides)).then((r) => r.value);

  onOneStore(
    open,
    (opened) => (store = opened),
    () => (search = new SearchProducts(store.products)),
  );

  it('walks a search page by page with the cursor each page answers, each match once, in order', async () => {
    const prices = ['3.00', '1.00', '2.00', '1.00', '5.00'];
    const created = [];
    for (const price of prices) created.push(await create({ name: 'lamp', price: Money.fromDecimalString(price) }));
    await create({ name: 'chair', price: Money.fromDecimalString('1.50') });
    const seen: number[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await search.execute({ q: 'lamp', sort: '-price', limit: 2, ...(cursor && { cursor }) });
      seen.push(...page.items.map((p) => p.id));
      if (!page.nextCursor) break;
      expect(page.items).to.have.length(2);
      cursor = page.nextCursor;
    }
    const [three, one, two, oneAgain, five] = created.map((p) => p.id);
    expect(seen).to.deep.equal([five, three, two, one, oneAgain]);
  });

  it('walks sort=relevance by cursor across its ranks, and refuses it without q, naming sort', async () => {
    const byDescription = await create({ name: 'chair', description: 'a lamp beside it' });
    const byName = await create({ name: 'desk lamp' });
    const bySku = await create({ name: 'shade', sku: 'LAMP-9' });
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await search.execute({ q: 'lamp', sort: 'relevance', limit: 1, ...(cursor && { cursor }) });
      seen.push(...page.items.map((p) => p.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).to.deep.equal([byName.id, bySku.id, byDescription.id]);
    expect(await problemsOf(search.execute({ sort: 'relevance', limit: 1 }))).to.have.property('sort');
  });

  it('answers no cursor on the last page, even when it is full', async () => {
    await create();
    await create();
    expect(await search.execute({ limit: 2 })).to.not.have.property('nextCursor');
  });

  it('refuses a cursor sent with other filters or another sort, naming cursor', async () => {
    for (let i = 0; i < 3; i++) await create({ name: `lamp ${i}` });
    const { nextCursor } = await search.execute({ q: 'lamp', sort: 'name', limit: 1 });
    expect(nextCursor).to.be.a('string');
    for (const other of [
      { q: 'lam' },
      { q: 'lamp', sort: '-name' as const },
      { q: 'lamp', sort: 'name' as const, maxPrice: Money.fromDecimalString('5.00') },
      { q: 'lamp', sort: 'name' as const, stockState: 'in' as const },
      { q: 'lamp', sort: 'name' as const, locationId: 1 },
    ]) {
      const problems = await problemsOf(search.execute({ ...other, limit: 1, cursor: nextCursor! }));
      expect(problems.cursor?.[0], JSON.stringify(other)).to.match(/another search/);
    }
    // The same search, with another page size, is the same search.
    expect((await search.execute({ q: 'lamp', sort: 'name', limit: 5, cursor: nextCursor! })).items).to.have.length(2);
  });

  it('refuses a cursor that is not one, naming cursor', async () => {
    const forged = Buffer.from(JSON.stringify({ s: 'id', k: 'x', i: 'y' })).toString('base64url');
    for (const cursor of ['not-a-cursor', '', forged, Buffer.from('null').toString('base64url')])
      expect((await problemsOf(search.execute({ limit: 1, cursor })))['cursor']).to.have.length(1);
  });

  it('refuses text shorter than 3 characters or longer than 200, and a minPrice above maxPrice', async () => {
    expect(await problemsOf(search.execute({ q: 'ab', limit: 1 }))).to.have.property('q');
    expect(await problemsOf(search.execute({ q: 'x'.repeat(201), limit: 1 }))).to.have.property('q');
    const [min, max] = [Money.fromDecimalString('2.00'), Money.fromDecimalString('1.99')];
    expect(await problemsOf(search.execute({ minPrice: min, maxPrice: max, limit: 1 }))).to.have.property('minPrice');
  });

  it('finds a product by SKU as a list of zero or one, and refuses a value that cannot be a SKU', async () => {
    const { id } = await create({ sku: 'LAMP-1' });
    const getProducts = new GetProducts(store.products);
    expect((await getProducts.bySku('lamp-1')).map((p) => p.id)).to.deep.equal([id]);
    expect(await getProducts.bySku('LAMP-2')).to.deep.equal([]);
    expect(await problemsOf(getProducts.bySku('no spaces'))).to.have.property('sku');
  });

  it('refuses a SKU taken on create and update, and replays a create with its SKU', async () => {
    const first = await create({ sku: 'CHAIR-1' });
    await expect(create({ sku: 'chair-1' })).to.be.rejectedWith(SkuTakenError);
    const second = await create({ sku: 'CHAIR-2' });
    const update = new UpdateProduct(store.unitOfWork, clock);
    await expect(update.execute(second.id, aProduct({ sku: 'Chair-1' }))).to.be.rejectedWith(SkuTakenError);
    const idempotency = { scope: 'create-product', key: 'k-sku', fingerprint: 'f' };
    const made = await new CreateProduct(store.unitOfWork, clock).execute(aProduct({ sku: 'DESK-1' }), { idempotency });
    const replay = await new CreateProduct(store.unitOfWork, clock).execute(aProduct({ sku: 'DESK-1' }), {
      idempotency,
    });
    expect(replay).to.deep.include({ replayed: true });
    expect(replay.value.sku).to.equal('DESK-1');
    expect(made.value.id).to.equal(replay.value.id);
    expect(first.sku).to.equal('CHAIR-1');
  });
}

for (const { name, open } of STORES) describe(`catalogue use cases ${name}`, () => catalogueUseCases(open));
