import { createScratchVhost, type ScratchVhost } from '@platform/test-kit';
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { launch, type RunningProcess, scratchDatabase } from './support';

const README = join(import.meta.dirname, '..', '..', '..', 'README.md');

/** The shell block of a README section that holds curl commands (not the one that starts the services). */
function walkthrough(section: string): string {
  const text = readFileSync(README, 'utf8').split(`## ${section}`)[1]!.split('\n## ')[0]!;
  const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  return blocks.find((block) => block.includes('curl'))!;
}

describe("the README's order walkthrough", function () {
  this.timeout(120_000);
  let vhost: ScratchVhost;
  let cleanUps: (() => Promise<void>)[] = [];
  let stock: RunningProcess;
  let sales: RunningProcess;

  before(async function () {
    vhost = await createScratchVhost(this);
    const stockDb = await scratchDatabase('sqlite', this, 'stock');
    const salesDb = await scratchDatabase('sqlite', this, 'sales');
    cleanUps = [stockDb.cleanUp, salesDb.cleanUp];
    stock = await launch('stock', { AMQP_URL: vhost.url, DATABASE_URL: stockDb.url, DB_CREATE_DATABASE: 'true' });
    sales = await launch('sales', { AMQP_URL: vhost.url, DATABASE_URL: salesDb.url, DB_CREATE_DATABASE: 'true', STOCK_URL: stock.url });
  });
  after(async () => {
    await Promise.all([sales?.process.stop(), stock?.process.stop()]);
    for (const cleanUp of cleanUps) await cleanUp();
    await vhost?.drop();
  });

  it('runs as written: the order is reserved, paid, completed, and the stock follows', async () => {
    const script = walkthrough('Orders: the sales service').replaceAll('http://localhost:8080', stock.url).replaceAll('http://localhost:8082', sales.url);
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', `${script}\n`], { timeout: 60_000 });
    const answers = stdout.split(/(?<=\})(?=\{)|\n/).filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(answers.map((a) => a.status ?? `${a.quantityInStock}/${a.reservedQuantity}`)).to.deep.equal(['reserved', '3/2', 'paid', '1/0']);
  });
});
