import { aProductBody } from '@stock/domain/testing';
import { expect } from 'chai';
import { type ApiUnderTest, expectProblem, json, type StartApi } from '../support/api-under-test';

interface ProductJson {
  id: number;
  sku: string | null;
  name: string;
  price: number;
  availableQuantity: number;
  stockState: string;
}

/** The next page's path from a Link header, or undefined on the last page. */
function nextLink(response: Response): string | undefined {
  const link = response.headers.get('link');
  return link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined;
}

export function catalogueHttpSuite(backend: string, start: StartApi): void {
  describe(`SKUs and search over HTTP on ${backend}`, function () {
    this.timeout(60_000);
    let api: ApiUnderTest;
    const request = (path: string, init?: RequestInit) => api.request(path, init);
    const body = async <T>(response: Response | Promise<Response>) => (await (await response).json()) as T;
    /** A word no other test's products have, so searches in a shared service see only this test's. */
    const word = () => `w${Math.random().toString(36).slice(2, 10)}`;
    const sku = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`.toUpperCase();

    const create = async (fields: Record<string, unknown> = {}) => {
      const response = await request('/api/products', json(aProductBody(fields)));
      expect(response.status, await response.clone().text()).to.equal(201);
      return (await response.json()) as ProductJson;
    };
    const put = (id: number, fields: Record<string, unknown>) =>
      request(`/api/products/${id}`, json(aProductBody(fields), { method: 'PUT' }));
    /** Every product of a search, following its Link headers from the first page. */
    const walk = async (path: string) => {
      const seen: ProductJson[] = [];
      for (let next: string | undefined = path; next;) {
        const response = await request(next);
        expect(response.status, await response.clone().text()).to.equal(200);
        seen.push(...((await response.json()) as ProductJson[]));
        next = nextLink(response);
      }
      return seen;
    };

    before(async function () {
      api = await start(this);
    });
    after(async () => api?.stop());

    describe('SKU', () => {
      it('is null on a product created without one, and as given with one', async () => {
        expect((await create()).sku).to.equal(null);
        const code = sku('Lamp');
        expect((await create({ sku: code })).sku).to.equal(code);
      });

      it('stays through a PUT that leaves it out, changes with one that gives it, and goes with null', async () => {
        const { id } = await create({ sku: sku('KEEP') });
        const kept = await body<ProductJson>(put(id, { name: 'renamed' }));
        expect(kept.sku).to.match(/^KEEP-/);
        const changed = sku('NEW');
        expect((await body<ProductJson>(put(id, { sku: changed }))).sku).to.equal(changed);
        expect((await body<ProductJson>(put(id, { sku: null }))).sku).to.equal(null);
        expect(await body(request(`/api/products?sku=${changed}`))).to.deep.equal([]);
      });

      it('answers GET ?sku= as an array of zero or one product, ignoring case', async () => {
        const code = sku('Find');
        const { id } = await create({ sku: code });
        const found = await body<ProductJson[]>(request(`/api/products?sku=${code.toLowerCase()}`));
        expect(found.map((p) => p.id)).to.deep.equal([id]);
        expect(await body(request(`/api/products?sku=${sku('NONE')}`))).to.deep.equal([]);
      });

      it('is a 409 SKU_TAKEN when another product has it, in any case, on POST and PUT', async () => {
        const code = sku('Taken');
        await create({ sku: code });
        const created = await request('/api/products', json(aProductBody({ sku: code.toLowerCase() })));
        expect(await expectProblem(created, 409, 'SKU_TAKEN')).to.include({ sku: code.toLowerCase() });
        const other = await create({ sku: sku('Other') });
        await expectProblem(await put(other.id, { sku: code }), 409, 'SKU_TAKEN');
        expect((await body<ProductJson>(request(`/api/products/${other.id}`))).sku).to.match(/^OTHER-/);
      });

      it('refuses a SKU that breaks the pattern, in a body and in the query, naming it', async () => {
        for (const bad of ['', 'has space', 'x'.repeat(65), 'é', 12]) {
          const answered = await expectProblem(
            await request('/api/products', json(aProductBody({ sku: bad }))),
            400,
            'VALIDATION_FAILED',
          );
          expect(answered.errors).to.have.property('sku');
        }
        const answered = await expectProblem(await request('/api/products?sku=a%20b'), 400, 'VALIDATION_FAILED');
        expect(answered.errors).to.have.property('sku');
        const combined = await expectProblem(await request('/api/products?sku=A-1&limit=5'), 400, 'VALIDATION_FAILED');
        expect(combined.errors).to.have.property('sku');
      });
    });

    describe('search', () => {
      it('matches q in the name, description or SKU, ignoring case', async () => {
        const w = word();
        const byName = await create({ name: `${w} lamp` });
        const byDescription = await create({ description: `A ${w.toUpperCase()} cable` });
        const bySku = await create({ sku: sku(w) });
        const found = await body<ProductJson[]>(request(`/api/products?q=${w}`));
        expect(found.map((p) => p.id)).to.deep.equal([byName.id, byDescription.id, bySku.id]);
      });

      it('filters by price, stock state and location together', async () => {
        const w = word();
        const match = await create({ name: w, price: 20, quantityInStock: 5 });
        await create({ name: w, price: 5, quantityInStock: 5 });
        await create({ name: w, price: 20, quantityInStock: 0 });
        const query = `q=${w}&minPrice=10&maxPrice=20.00&stockState=in&locationId=1`;
        const found = await body<ProductJson[]>(request(`/api/products?${query}`));
        expect(found.map((p) => p.id)).to.deep.equal([match.id]);
        const elsewhere = await body<ProductJson[]>(request(`/api/products?q=${w}&locationId=999999`));
        expect(elsewhere).to.deep.equal([]);
      });

      for (const sort of ['name', '-price', 'available', '-available'] as const) {
        it(`walks sort=${sort} page by page through Link headers, each match once and in order`, async () => {
          const w = word();
          const rows: [string, number, number][] = [
            ['delta', 5, 3],
            ['alpha', 7.5, 0],
            ['charlie', 5, 9],
            ['alpha', 1.25, 3],
            ['bravo', 12, 1],
          ];
          const created = [];
          for (const [name, price, stock] of rows)
            created.push(await create({ name: `${w} ${name}`, price, quantityInStock: stock }));
          const walked = await walk(`/api/products?q=${w}&sort=${sort}&limit=2`);
          const key = (p: ProductJson) =>
            sort.includes('name') ? p.name : sort.includes('price') ? p.price : p.availableQuantity;
          const sign = sort.startsWith('-') ? -1 : 1;
          const expected = [...created]
            .sort((a, b) => (key(a) < key(b) ? -sign : key(a) > key(b) ? sign : 0) || a.id - b.id)
            .map((p) => p.id);
          expect(walked.map((p) => p.id)).to.deep.equal(expected);
        });
      }

      it('walks sort=relevance page by page: the name’s matches, then the SKU’s, then the description’s only', async () => {
        const w = word();
        const byDescription = await create({ name: 'lamp', description: `an ${w} finish` });
        const byName = await create({ name: `${w} desk` });
        const bySku = await create({ name: 'chair', sku: sku(w) });
        const alsoByName = await create({ name: `A ${w.toUpperCase()} shelf`, description: w });
        const walked = await walk(`/api/products?q=${w}&sort=relevance&limit=1`);
        expect(walked.map((p) => p.id)).to.deep.equal([byName.id, alsoByName.id, bySku.id, byDescription.id]);
      });

      it('keeps walking while products are written between pages, each match once', async () => {
        const w = word();
        const created = [];
        for (let i = 0; i < 5; i++) created.push(await create({ name: `${w} ${i}` }));
        const first = await request(`/api/products?q=${w}&sort=name&limit=2`);
        const seen = (await first.json()) as ProductJson[];
        await create({ name: `${w} 9 added` });
        await put(created[0]!.id, { name: `${w} 0`, price: 99 });
        seen.push(...(await walk(nextLink(first)!)));
        const ids = seen.map((p) => p.id);
        expect(new Set(ids).size).to.equal(ids.length);
        expect(ids.slice(0, 5)).to.deep.equal(created.map((p) => p.id));
      });

      it('answers the next page’s Link with the same search and a cursor, and none on the last page', async () => {
        const w = word();
        for (let i = 0; i < 3; i++) await create({ name: `${w} ${i}`, price: 10 });
        const response = await request(`/api/products?q=${w}&maxPrice=10&sort=price&limit=2`);
        const next = new URL(nextLink(response)!, 'http://x');
        expect(Object.fromEntries(next.searchParams)).to.include({
          q: w,
          maxPrice: '10.00',
          sort: 'price',
          limit: '2',
        });
        expect(next.searchParams.get('cursor')).to.match(/^[A-Za-z0-9_-]+$/);
        const last = await request(`${next.pathname}${next.search}`);
        expect(await last.json()).to.have.length(1);
        expect(last.headers.get('link')).to.equal(null);
      });

      it('refuses a cursor sent with another search, naming cursor', async () => {
        const w = word();
        for (let i = 0; i < 3; i++) await create({ name: `${w} ${i}` });
        const next = new URL(nextLink(await request(`/api/products?q=${w}&sort=name&limit=1`))!, 'http://x');
        const cursor = next.searchParams.get('cursor')!;
        for (const other of [`q=${w}&sort=-name`, `q=${w}x&sort=name`, `q=${w}&sort=name&stockState=in`]) {
          const answered = await expectProblem(
            await request(`/api/products?${other}&cursor=${cursor}`),
            400,
            'VALIDATION_FAILED',
          );
          expect(answered.errors, other).to.have.property('cursor');
        }
      });

      it('answers 400 naming each bad search parameter', async () => {
        const cases: [string, string][] = [
          ['q=ab', 'q'],
          ['minPrice=abc', 'minPrice'],
          ['minPrice=1.234', 'minPrice'],
          ['maxPrice=-1', 'maxPrice'],
          ['minPrice=5&maxPrice=4', 'minPrice'],
          ['locationId=0', 'locationId'],
          ['sort=cheapest', 'sort'],
          ['sort=relevance', 'sort'],
          ['sort=-relevance', 'sort'],
          ['sort=price&limit=0', 'limit'],
          ['sort=price&limit=1001', 'limit'],
          ['cursor=%%%', 'cursor'],
          ['sort=price&after=3', 'after'],
          ['q=lamp&q=desk', 'q'],
          ['Sort=price', 'Sort'],
        ];
        for (const [query, parameter] of cases) {
          const answered = await expectProblem(await request(`/api/products?${query}`), 400, 'VALIDATION_FAILED');
          expect(answered.errors, query).to.have.property(parameter);
        }
      });

      it('leaves limit and after paging by id as before, Link and all', async () => {
        const a = await create();
        await create();
        const response = await request(`/api/products?limit=1&after=${a.id - 1}`);
        expect(await response.json()).to.have.length(1);
        expect(response.headers.get('link')).to.equal(`</api/products?limit=1&after=${a.id}>; rel="next"`);
      });
    });
  });
}
