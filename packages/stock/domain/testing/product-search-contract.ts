import {
  DEFAULT_LOCATION_ID,
  Money,
  PRODUCT_SORTS,
  type Product,
  type ProductRepository,
  type ProductSearch,
  type ProductSort,
  type SearchPosition,
  searchRelevance,
  SkuTakenError,
} from '../src';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { aContext, aProduct } from './builders';
import { adjustStored, aStoredLocation, aStoredProduct, holdStored, removeStored } from './stock-fixtures';
import { onOneStore, type OpenStockStore, type StockStoreUnderTest } from './stock-store';

chai.use(chaiAsPromised);
const { expect } = chai;

/** A product's value of a sort's key, as SearchPosition.key carries it (relevance: for the search's text). */
function keyOf(sort: ProductSort, product: Product, text = ''): string | number {
  const field = sort.replace('-', '');
  if (field === 'relevance') return searchRelevance(product, text)!;
  if (field === 'name') return product.name;
  if (field === 'price') return product.price.cents;
  if (field === 'available') return product.availableQuantity;
  return product.id;
}

/** The order a sort promises: its key (descending with `-`), then the id ascending. */
function inSortOrder(sort: ProductSort, products: readonly Product[]): number[] {
  const sign = sort.startsWith('-') ? -1 : 1;
  return [...products]
    .sort((a, b) => {
      const [x, y] = [keyOf(sort, a), keyOf(sort, b)];
      return (x < y ? -sign : x > y ? sign : 0) || a.id - b.id;
    })
    .map((product) => product.id);
}

/**
 * The catalogue side of every ProductRepository adapter: SKUs unique ignoring
 * case, and searches with every filter and sort, paged by keyset positions.
 * Names here are lowercase ASCII, so every store's collation orders them alike.
 */
export function productSearchContract(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  let products: ProductRepository;
  const write = <T>(call: (products: ProductRepository) => Promise<T>) =>
    store.unitOfWork.run((tx) => call(tx.products), { singleCall: true });
  const search = (query: Partial<ProductSearch>) => products.search({ sort: 'id', limit: 100, ...query });
  const ids = (found: readonly Product[]) => found.map((product) => product.id);

  /** Every page of a search, `size` at a time, each after the last one's position; `between` runs between pages. */
  async function walk(query: Partial<ProductSearch>, size: number, between?: (page: number) => Promise<void>) {
    const sort = query.sort ?? 'id';
    const seen: Product[] = [];
    let after: SearchPosition | undefined;
    for (let page = 0; page < 100; page++) {
      const found = await search({ ...query, sort, limit: size, ...(after && { after }) });
      seen.push(...found);
      if (found.length < size) return seen;
      const last = found[found.length - 1]!;
      after = { key: keyOf(sort, last, query.q), id: last.id };
      await between?.(page);
    }
    throw new Error('The walk did not end.');
  }

  onOneStore(
    open,
    (opened) => (store = opened),
    () => {
      products = store.products;
    },
  );

  describe('SKUs', () => {
    it('keeps a product’s SKU as given, none when absent, and through an update that leaves it out', async () => {
      const withSku = await aStoredProduct(store, { sku: 'Kb-01.blue_2' });
      const without = await aStoredProduct(store);
      expect(withSku.sku).to.equal('Kb-01.blue_2');
      expect((await products.findById(withSku.id))?.sku).to.equal('Kb-01.blue_2');
      expect((await products.findById(without.id))?.sku).to.equal(null);
      const kept = await write((p) => p.updateDetails(withSku.id, aProduct({ name: 'renamed' }), undefined));
      expect(kept).to.include({ status: 'updated' });
      expect((await products.findById(withSku.id))?.sku).to.equal('Kb-01.blue_2');
    });

    it('changes a SKU, and removes it with null', async () => {
      const { id } = await aStoredProduct(store, { sku: 'OLD-1' });
      await write((p) => p.updateDetails(id, aProduct({ sku: 'NEW-1' }), undefined));
      expect((await products.findById(id))?.sku).to.equal('NEW-1');
      expect(await products.findBySku('old-1')).to.equal(undefined);
      await write((p) => p.updateDetails(id, aProduct({ sku: null }), undefined));
      expect((await products.findById(id))?.sku).to.equal(null);
      expect(await products.findBySku('NEW-1')).to.equal(undefined);
    });

    it('finds a product by its SKU whatever the case of the letters asked, and nothing for an unknown one', async () => {
      const { id } = await aStoredProduct(store, { sku: 'Abc-123' });
      await aStoredProduct(store, { sku: 'Abc-1234' });
      for (const asked of ['Abc-123', 'ABC-123', 'abc-123']) expect((await products.findBySku(asked))?.id).to.equal(id);
      expect(await products.findBySku('abc-12')).to.equal(undefined);
    });

    it('refuses a SKU another product has, in any case, on add: SkuTakenError, and nothing is stored', async () => {
      const first = await aStoredProduct(store, { sku: 'DUP-1' });
      await expect(write((p) => p.add(aProduct({ sku: 'dup-1', name: 'second' }), aContext())))
        .to.be.rejectedWith(SkuTakenError)
        .and.eventually.include({ code: 'SKU_TAKEN', sku: 'dup-1' });
      expect(ids(await search({}))).to.deep.equal([first.id]);
    });

    it('refuses a SKU another product has on update, and leaves the product as it was; its own SKU in another case is fine', async () => {
      await aStoredProduct(store, { sku: 'TAKEN-1' });
      const other = await aStoredProduct(store, { sku: 'MINE-1', name: 'mine' });
      await expect(
        write((p) => p.updateDetails(other.id, aProduct({ sku: 'Taken-1', name: 'changed' }), undefined)),
      ).to.be.rejectedWith(SkuTakenError);
      expect(await products.findById(other.id)).to.include({ sku: 'MINE-1', name: 'mine', version: 1 });
      const recased = await write((p) => p.updateDetails(other.id, aProduct({ sku: 'mine-1' }), undefined));
      expect(recased.status === 'updated' && recased.product.sku).to.equal('mine-1');
    });

    it('lets any number of products have no SKU', async () => {
      await aStoredProduct(store);
      await aStoredProduct(store, { sku: null });
      expect(await search({})).to.have.length(2);
    });
  });

  describe('search', () => {
    it('matches q in the name, the description or the SKU, ignoring case, and nothing else', async () => {
      const byName = await aStoredProduct(store, { name: 'blue keyboard', description: 'plain' });
      const byDescription = await aStoredProduct(store, { name: 'mouse', description: 'A BLUE cable' });
      const bySku = await aStoredProduct(store, { name: 'lamp', description: 'plain', sku: 'SKU-BlUe-9' });
      await aStoredProduct(store, { name: 'red keyboard', description: 'b l u e' });
      expect(ids(await search({ q: 'Blue' }))).to.deep.equal([byName.id, byDescription.id, bySku.id]);
      expect(ids(await search({ q: 'keyboard' }))).to.have.length(2);
      expect(ids(await search({ q: 'e cab' })), 'a phrase, spaces included').to.deep.equal([byDescription.id]);
      expect(await search({ q: 'green' })).to.deep.equal([]);
    });

    it('takes q literally: LIKE’s wildcards and quotes are characters', async () => {
      const percent = await aStoredProduct(store, { name: 'save 50% now' });
      await aStoredProduct(store, { name: 'save 500 now' });
      const quoted = await aStoredProduct(store, { name: 'the "big" one' });
      const underscore = await aStoredProduct(store, { name: 'snake_case' });
      await aStoredProduct(store, { name: 'snakeXcase' });
      expect(ids(await search({ q: '50%' }))).to.deep.equal([percent.id]);
      expect(ids(await search({ q: '"big"' }))).to.deep.equal([quoted.id]);
      expect(ids(await search({ q: 'e_c' }))).to.deep.equal([underscore.id]);
    });

    it('keeps the text index in step with names and SKUs changed and products removed', async () => {
      const { id } = await aStoredProduct(store, { name: 'old name', sku: 'SKU-OLD' });
      await write((p) => p.updateDetails(id, aProduct({ name: 'new title', sku: 'SKU-NEW' }), undefined));
      expect(await search({ q: 'old' })).to.deep.equal([]);
      expect(ids(await search({ q: 'title' }))).to.deep.equal([id]);
      expect(ids(await search({ q: 'sku-new' }))).to.deep.equal([id]);
      await removeStored(store, id);
      expect(await search({ q: 'title' })).to.deep.equal([]);
    });

    it('bounds the price by minPrice and maxPrice, both included, to the cent', async () => {
      const prices = ['9.99', '10.00', '10.01', '25.50', '25.51'];
      const stored = [];
      for (const price of prices) stored.push(await aStoredProduct(store, { price: Money.fromDecimalString(price) }));
      const money = (amount: string) => Money.fromDecimalString(amount);
      expect(ids(await search({ minPrice: money('10.00') }))).to.deep.equal(ids(stored.slice(1)));
      expect(ids(await search({ maxPrice: money('25.50') }))).to.deep.equal(ids(stored.slice(0, 4)));
      expect(ids(await search({ minPrice: money('10.01'), maxPrice: money('25.50') }))).to.deep.equal(
        ids(stored.slice(2, 4)),
      );
    });

    it('filters by stock state as the product computes it', async () => {
      const inStock = await aStoredProduct(store, { quantityInStock: 10, lowStockThreshold: 5 });
      const low = await aStoredProduct(store, { quantityInStock: 3, lowStockThreshold: 5 });
      const out = await aStoredProduct(store, { quantityInStock: 0 });
      const reservedAway = await aStoredProduct(store, { quantityInStock: 4 });
      await holdStored(store, reservedAway.id, { quantity: 4, locationId: DEFAULT_LOCATION_ID });
      expect(ids(await search({ stockState: 'in' }))).to.deep.equal([inStock.id]);
      expect(ids(await search({ stockState: 'low' }))).to.deep.equal([low.id]);
      expect(ids(await search({ stockState: 'out' }))).to.deep.equal([out.id, reservedAway.id]);
    });

    it('keeps to products with stock available at a location', async () => {
      const location = await aStoredLocation(store);
      const there = await aStoredProduct(store, { quantityInStock: 0 });
      await adjustStored(store, there.id, location.id, 2);
      const heldThere = await aStoredProduct(store, { quantityInStock: 0 });
      await adjustStored(store, heldThere.id, location.id, 2);
      await holdStored(store, heldThere.id, { quantity: 2, locationId: location.id });
      const elsewhere = await aStoredProduct(store, { quantityInStock: 5 });
      expect(ids(await search({ locationId: location.id }))).to.deep.equal([there.id]);
      expect(ids(await search({ locationId: DEFAULT_LOCATION_ID }))).to.deep.equal([elsewhere.id]);
      expect(await search({ locationId: location.id + 1000 })).to.deep.equal([]);
    });

    it('combines every filter', async () => {
      const location = await aStoredLocation(store);
      const price = Money.fromDecimalString('15.00');
      const match = await aStoredProduct(store, { name: 'green lamp', price, quantityInStock: 0 });
      await adjustStored(store, match.id, location.id, 3);
      const cheap = await aStoredProduct(store, { name: 'green lamp', price: Money.fromDecimalString('1.00') });
      await adjustStored(store, cheap.id, location.id, 3);
      await aStoredProduct(store, { name: 'green lamp', price, quantityInStock: 3 });
      const found = await search({
        q: 'green',
        minPrice: Money.fromDecimalString('10.00'),
        maxPrice: Money.fromDecimalString('20.00'),
        stockState: 'in',
        locationId: location.id,
      });
      expect(ids(found)).to.deep.equal([match.id]);
    });

    describe('sorted', () => {
      /** Ties in every key (names, prices, available), so the id must break them. */
      async function aCatalogue(): Promise<Product[]> {
        const rows: [string, string, number][] = [
          ['delta', '5.00', 3],
          ['alpha', '7.50', 0],
          ['charlie', '5.00', 9],
          ['alpha', '1.25', 3],
          ['bravo', '7.50', 1],
          ['echo', '0.99', 9],
          ['bravo', '12.00', 3],
        ];
        const stored: Product[] = [];
        for (const [name, price, stock] of rows)
          stored.push(
            await aStoredProduct(store, { name, price: Money.fromDecimalString(price), quantityInStock: stock }),
          );
        // A reservation lowers available below the stock: the sort is by available, not by stock.
        await holdStored(store, stored[2]!.id, { quantity: 8, locationId: DEFAULT_LOCATION_ID });
        return Promise.all(stored.map(async (product) => (await products.findById(product.id))!));
      }

      for (const sort of PRODUCT_SORTS.filter((each) => each !== 'relevance')) {
        it(`orders by ${sort}, ties by id ascending, and walks its pages each product once, in order`, async () => {
          const catalogue = await aCatalogue();
          const expected = inSortOrder(sort, catalogue);
          expect(ids(await search({ sort }))).to.deep.equal(expected);
          for (const size of [1, 2, 3])
            expect(ids(await walk({ sort }, size)), `pages of ${size}`).to.deep.equal(expected);
        });
      }

      for (const sort of ['name', '-price', 'available', 'id'] as const) {
        it(`walks the pages of ${sort} each product once, in order, while products are written between pages`, async () => {
          const catalogue = await aCatalogue();
          const walked = await walk({ sort }, 2, async (page) => {
            // A product added, and a product's stock and name changed, without moving its place in this sort.
            await aStoredProduct(store, { name: `foxtrot ${page}`, quantityInStock: 1 });
            const first = catalogue[0]!;
            await adjustStored(store, first.id, DEFAULT_LOCATION_ID, 1);
            await adjustStored(store, first.id, DEFAULT_LOCATION_ID, -1);
          });
          const walkedIds = ids(walked);
          expect(new Set(walkedIds).size, 'no product twice').to.equal(walkedIds.length);
          const existing = new Set(ids(catalogue));
          expect(
            walkedIds.filter((id) => existing.has(id)),
            'every product there all along',
          ).to.deep.equal(inSortOrder(sort, catalogue));
          const now = await Promise.all(walked.map(async (product) => (await products.findById(product.id))!));
          expect(walkedIds, 'in order').to.deep.equal(inSortOrder(sort, now));
        });
      }

      it('pages a filtered search by its sort', async () => {
        const catalogue = await aCatalogue();
        const cheap = catalogue.filter((product) => product.price.cents <= 750);
        const walked = await walk({ sort: '-price', maxPrice: Money.fromDecimalString('7.50') }, 2);
        expect(ids(walked)).to.deep.equal(inSortOrder('-price', cheap));
      });

      it('answers at most `limit` products', async () => {
        await aCatalogue();
        expect(await search({ sort: 'name', limit: 4 })).to.have.length(4);
      });
    });

    describe('by relevance', () => {
      /** The text in each field, in any case, and as part of a longer word; ranks interleaved in id order. */
      async function aCatalogue() {
        const stored = {
          lampByDescription: await aStoredProduct(store, { name: 'lamp', description: 'an oak finish' }),
          deskByName: await aStoredProduct(store, { name: 'oak desk', description: 'plain' }),
          chairBySku: await aStoredProduct(store, { name: 'chair', description: 'plain', sku: 'OAK-1' }),
          shelfByName: await aStoredProduct(store, { name: 'Oak shelf', description: 'oak too', sku: 'OAK-2' }),
          table: await aStoredProduct(store, { name: 'table', description: 'pine', sku: 'TB-1' }),
          stoolByDescription: await aStoredProduct(store, { name: 'stool', description: 'made of OAK', sku: 'ST-1' }),
          cloakByName: await aStoredProduct(store, { name: 'cloak', description: 'wool' }),
          benchBySku: await aStoredProduct(store, { name: 'bench', description: 'an oak bench', sku: 'BN-OAK' }),
        };
        const { deskByName, shelfByName, cloakByName, chairBySku, benchBySku } = stored;
        const { lampByDescription, stoolByDescription } = stored;
        return [deskByName, shelfByName, cloakByName, chairBySku, benchBySku, lampByDescription, stoolByDescription];
      }

      it('orders the name’s matches first, then the SKU’s, then the description’s only, ties by id', async () => {
        const expected = ids(await aCatalogue());
        expect(ids(await search({ q: 'oak', sort: 'relevance' }))).to.deep.equal(expected);
        expect(ids(await search({ q: 'OAK', sort: 'relevance', limit: 4 }))).to.deep.equal(expected.slice(0, 4));
      });

      for (const size of [1, 2, 3, 4])
        it(`walks its pages of ${size} each product once, in order, across the ranks`, async () => {
          const expected = ids(await aCatalogue());
          expect(ids(await walk({ q: 'oak', sort: 'relevance' }, size))).to.deep.equal(expected);
        });

      it('keeps to the other filters in every rank', async () => {
        const [cheap, dear] = [Money.fromDecimalString('1.00'), Money.fromDecimalString('50.00')];
        const byDescription = await aStoredProduct(store, { name: 'lamp', description: 'oak', price: cheap });
        await aStoredProduct(store, { name: 'oak', price: dear });
        const bySku = await aStoredProduct(store, { name: 'chair', sku: 'OAK-9', price: cheap });
        await aStoredProduct(store, { name: 'stool', description: 'oak', price: dear });
        const byName = await aStoredProduct(store, { name: 'oak desk', price: cheap });
        expect(ids(await walk({ q: 'oak', sort: 'relevance', maxPrice: cheap }, 1))).to.deep.equal(
          ids([byName, bySku, byDescription]),
        );
      });

      it('answers nothing when nothing has the text', async () => {
        await aCatalogue();
        expect(await search({ q: 'maple', sort: 'relevance' })).to.deep.equal([]);
      });
    });
  });
}
