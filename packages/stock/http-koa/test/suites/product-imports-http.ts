import { parse } from 'csv-parse/sync';
import { expect } from 'chai';
import { type ApiUnderTest, type StartApi } from '../support/api-under-test';

interface ImportResultJson {
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  errors: { row: number; problems: string[] }[];
}

const HEADER = 'id,sku,name,description,price,locationCode,onHand,backorderLimit,lowStockThreshold';

export function productImportsHttpSuite(backend: string, start: StartApi): void {
  describe(`Product imports and exports over HTTP on ${backend}`, function () {
    this.timeout(60_000);
    let api: ApiUnderTest;
    const post = (body: string, type: string, query = '', headers: Record<string, string> = {}) =>
      api.request(`/api/product-imports${query}`, {
        method: 'POST',
        headers: { 'content-type': type, ...headers },
        body,
      });
    const result = async (response: Promise<Response>) => {
      const answered = await response;
      expect(answered.status, await answered.clone().text()).to.equal(200);
      return (await answered.json()) as ImportResultJson;
    };
    const exported = (accept: string) => api.request('/api/products/export', { headers: { accept } });
    const named = async (name: string) =>
      ((await (await api.request('/api/products')).json()) as { id: number; name: string }[]).find(
        (product) => product.name === name,
      );

    before(async function () {
      api = await start(this);
    });
    after(async () => api?.stop());

    it('imports CSV: creates, reports a bad row by number, and sets stock at a location', async () => {
      expect(
        (
          await api.request('/api/locations', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ code: 'east', name: 'East' }),
          })
        ).status,
      ).to.equal(201);
      const csv = [
        'sku,name,description,price,locationCode,onHand',
        'CSV-1,"Lamp, brass","A ""warm"" light",39.90,,12',
        'CSV-2,Chair,,free,,1',
        'CSV-1,,,,east,4',
      ].join('\r\n');
      expect(await result(post(csv, 'text/csv'))).to.deep.equal({
        created: 1,
        updated: 1,
        unchanged: 0,
        failed: 1,
        errors: [{ row: 2, problems: ['price: must be a decimal amount such as 12 or 12.50'] }],
      });
      const lamp = (await named('Lamp, brass'))!;
      expect(lamp).to.include({ name: 'Lamp, brass', quantityInStock: 16 });
      const levels = (await (await api.request(`/api/products/${lamp.id}/stock-levels`)).json()) as {
        locationCode: string;
        onHand: number;
      }[];
      expect(levels.map((l) => [l.locationCode, l.onHand])).to.deep.equal([
        ['default', 12],
        ['east', 4],
      ]);
      const movements = (await (await api.request(`/api/products/${lamp.id}/stock-movements`)).json()) as {
        kind: string;
      }[];
      expect(movements.map((m) => m.kind)).to.deep.equal(['created', 'imported', 'imported']);
    });

    it('imports NDJSON line by line: numbers, null as an empty cell, a line that is not JSON failing alone', async () => {
      const ndjson = [
        JSON.stringify({ sku: 'ND-1', name: 'Kettle', price: 25.5, onHand: 3, description: null }),
        '{"sku": "ND-2", "name": ',
        '',
        JSON.stringify({ sku: 'ND-1', price: '26' }),
      ].join('\n');
      const answer = await result(post(ndjson, 'application/x-ndjson'));
      expect(answer).to.deep.include({ created: 1, updated: 1, failed: 1 });
      expect(answer.errors[0]!.row).to.equal(2);
      expect(await named('Kettle')).to.include({ name: 'Kettle', price: 26, quantityInStock: 3 });
    });

    it('refuses unknown columns and fields with a 400 naming them, before any row applies', async () => {
      const csv = await post('sku,name,colour,size\nU-1,Shirt,red,M\n', 'text/csv');
      expect(csv.status).to.equal(400);
      expect(((await csv.json()) as { errors: object }).errors).to.have.keys('colour', 'size');
      const ndjson = await post(
        `${JSON.stringify({ sku: 'U-2', name: 'Hat', price: 1, colour: 'red' })}\n`,
        'application/x-ndjson',
      );
      expect(ndjson.status).to.equal(400);
      expect(((await ndjson.json()) as { errors: object }).errors).to.have.keys('colour');
      expect(await named('Shirt')).to.equal(undefined);
      expect(await named('Hat')).to.equal(undefined);
      expect((await post('a,b\n', 'text/plain')).status).to.equal(415);
      const latin1 = await api.request('/api/product-imports', {
        method: 'POST',
        headers: { 'content-type': 'text/csv' },
        body: Buffer.from('name,price\nCaf\xe9,1\n', 'latin1'),
      });
      expect(latin1.status).to.equal(400);
      expect(await named('Caf\ufffd')).to.equal(undefined);
      expect((await post('sku,name\n', 'text/csv', '?atomic=maybe')).status).to.equal(400);
      expect((await post('sku,name\n', 'text/csv', '?limit=1')).status).to.equal(400);
    });

    it('refuses a row longer than 64 KiB with a 413', async () => {
      const long = await post(`sku,name,description\nL-1,Long,${'x'.repeat(70_000)}\n`, 'text/csv');
      expect(long.status).to.equal(413);
      const line = await post(`${JSON.stringify({ name: 'y'.repeat(70_000) })}\n`, 'application/x-ndjson');
      expect(line.status).to.equal(413);
    });

    it('applies all rows or none with atomic=true, and nothing with dryRun=true', async () => {
      const csv = 'sku,name,price\nAT-1,First,1\nAT-2,,2\n';
      expect(await result(post(csv, 'text/csv', '?atomic=true'))).to.deep.include({ created: 0, failed: 1 });
      expect(await named('First')).to.equal(undefined);
      const fine = 'sku,name,price\nAT-1,First,1\n';
      expect(await result(post(fine, 'text/csv', '?dryRun=true'))).to.deep.include({ created: 1 });
      expect(await named('First')).to.equal(undefined);
      expect(await result(post(fine, 'text/csv', '?atomic=true'))).to.deep.include({ created: 1 });
      expect(await named('First')).to.include({ name: 'First' });
    });

    it('answers a repeated Idempotency-Key from its record, and refuses it with another body', async () => {
      const key = { 'idempotency-key': `import-${backend}-${Date.now()}` };
      const csv = 'name,price,onHand\nOnce only,1,1\n';
      const first = await post(csv, 'text/csv', '', key);
      const again = await post(csv, 'text/csv', '', key);
      expect(await first.json()).to.deep.include({ created: 1 });
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(await again.json()).to.deep.include({ created: 1 });
      const products = (await (await api.request('/api/products')).json()) as { name: string }[];
      expect(products.filter((p) => p.name === 'Once only')).to.have.length(1);
      expect((await post('name,price\nOther,1\n', 'text/csv', '', key)).status).to.equal(422);
    });

    it('exports CSV or NDJSON by Accept, 406 otherwise, and a re-import of the export changes nothing', async () => {
      const csv = await exported('text/csv');
      expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
      const text = await csv.text();
      // Read back with a real CSV parser, as a spreadsheet would.
      const records = parse<Record<string, string>>(text, { columns: true });
      expect(text.split('\n')[0]).to.equal(HEADER);
      expect(records.find((r) => r.sku === 'CSV-1' && r.locationCode === 'east')).to.include({
        name: 'Lamp, brass',
        description: 'A "warm" light',
        price: '39.90',
        onHand: '4',
      });
      const reimported = await result(post(text, 'text/csv'));
      expect(reimported).to.deep.equal({ created: 0, updated: 0, unchanged: records.length, failed: 0, errors: [] });
      const ndjson = await exported('application/x-ndjson');
      expect(ndjson.headers.get('content-type')).to.match(/^application\/x-ndjson/);
      const lines = (await ndjson.text()).trim().split('\n');
      expect(lines).to.have.length(records.length);
      expect(JSON.parse(lines[0]!)).to.have.keys(HEADER.split(','));
      expect(await result(post(lines.join('\n'), 'application/x-ndjson'))).to.deep.include({
        created: 0,
        updated: 0,
        unchanged: lines.length,
      });
      expect((await exported('application/json')).status).to.equal(406);
    });
  });
}
