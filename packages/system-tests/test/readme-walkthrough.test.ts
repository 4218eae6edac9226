import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  type CurlAnswer,
  docShellBlock,
  jsonAnswers,
  type OrderSystem,
  PAYMENTS_KEY,
  startOrderSystem,
} from './support';

describe("the sales API page's order walkthrough", function () {
  this.timeout(120_000);
  let system: OrderSystem;

  before(async function () {
    system = await startOrderSystem('sqlite', this);
  });
  after(async () => system?.stop());

  it('runs as written: the order is reserved, paid by the provider, shipped, returned and refunded, and the stock follows', async () => {
    const script = docShellBlock('docs/sales-api.md', 'An order, start to finish')
      .replaceAll('http://localhost:8080', system.stock.url)
      .replaceAll('http://localhost:8082', system.sales.url)
      .replaceAll('http://localhost:8084', system.payments.url)
      .replaceAll('sk_test_sales_walkthrough', PAYMENTS_KEY);
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', `${script}\n`], {
      timeout: 60_000,
    });
    const answers = jsonAnswers<CurlAnswer>(stdout);
    expect(answers.map((a) => a.status ?? `${a.quantityInStock}/${a.reservedQuantity}`)).to.deep.equal([
      'reserved',
      '3/2',
      'paid',
      '3/0',
      'shipped',
      '3/0',
      'pending',
    ]);
  });
});
