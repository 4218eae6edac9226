import { eventually, scratchDatabaseFor } from '@platform/test-kit';
import { expect } from 'chai';
import { Readable } from 'node:stream';
import { type ServiceProcess, startProcess } from './process-support';
import { checkedFetch } from './checked-fetch';

const ROWS = 200_000;
const HEAP_MIB = 128;

/** A CSV of `rows` new products, made as it is sent: the test holds no more of it than the socket does. */
async function* generatedCsv(rows: number): AsyncGenerator<string> {
  yield 'sku,name,description,price,onHand,lowStockThreshold\n';
  for (let start = 0; start < rows; start += 1000) {
    let chunk = '';
    for (let i = start; i < Math.min(rows, start + 1000); i++)
      chunk += `BULK-${i},Bulk product ${i},"Loaded, in bulk",${((100 + (i % 5000)) / 100).toFixed(2)},${i % 50},5\n`;
    yield chunk;
  }
}

/**
 * The import reads its body as a stream, a batch at a time: a service whose
 * heap is capped at 128 MiB takes 200,000 rows (a body of about 12 MB) on
 * SQLite and answers them all. The million within the same heap is what
 * `pnpm bench:scale` measures; here no timing is asserted, only that it ends.
 * The service's REQUEST_TIMEOUT_MS is 2 s, far less than the import takes:
 * the body is taken whole first (spooled to a file), so only its upload has
 * to fit in it, not the import.
 */
describe('A large import in a small heap', function () {
  this.timeout(900_000);
  let service: ServiceProcess | undefined;
  let database: { url: string; cleanUp(): Promise<void> } | undefined;

  after(async () => {
    await service?.stop();
    await database?.cleanUp();
  });

  it(`imports ${ROWS.toLocaleString('en')} CSV rows on SQLite with --max-old-space-size=${HEAP_MIB}`, async function () {
    database = await scratchDatabaseFor('sqlite', this, 'stock-import');
    service = startProcess({
      DATABASE_URL: database.url,
      DB_CREATE_DATABASE: 'true',
      AUTH_ISSUER: undefined,
      NODE_OPTIONS: `--max-old-space-size=${HEAP_MIB}`,
      REQUEST_TIMEOUT_MS: '2000',
    });
    const url = `http://127.0.0.1:${await service.port()}`;
    const response = await checkedFetch(`${url}/api/product-imports`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: Readable.toWeb(Readable.from(generatedCsv(ROWS))) as ReadableStream,
      duplex: 'half',
    });
    expect(response.status, await response.clone().text()).to.equal(200);
    expect(await response.json()).to.deep.equal({ created: ROWS, updated: 0, unchanged: 0, failed: 0, errors: [] });
    expect(service.child.exitCode, service.stderr.join('\n')).to.equal(null);
    // Progress was told while it ran, every 10,000 rows (the last line may reach the pipe after the answer).
    await eventually(
      'a progress line every 10,000 rows',
      10_000,
      () => service!.stdout.filter((line) => line.includes('product import progress')).length === ROWS / 10_000,
    );
    const count = await checkedFetch(`${url}/api/products?after=${ROWS - 1}&limit=10`);
    expect(((await count.json()) as unknown[]).length).to.equal(1);
  });
});
