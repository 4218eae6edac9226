import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type OrderSystem, startOrderSystem } from './support';

const README = join(import.meta.dirname, '..', '..', '..', 'README.md');

/** The shell block of a README section that holds curl commands (not the one that starts the services). */
function walkthrough(section: string): string {
  const text = readFileSync(README, 'utf8').split(`## ${section}`)[1]!.split('\n## ')[0]!;
  const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  return blocks.find((block) => block.includes('curl'))!;
}

describe("the README's order walkthrough", function () {
  this.timeout(120_000);
  let system: OrderSystem;

  before(async function () {
    system = await startOrderSystem('sqlite', this);
  });
  after(async () => system?.stop());

  it('runs as written: the order is reserved, paid, completed, and the stock follows', async () => {
    const script = walkthrough('Orders: the sales service').replaceAll('http://localhost:8080', system.stock.url).replaceAll('http://localhost:8082', system.sales.url);
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', `${script}\n`], { timeout: 60_000 });
    const answers = stdout.split(/(?<=\})(?=\{)|\n/).filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(answers.map((a) => a.status ?? `${a.quantityInStock}/${a.reservedQuantity}`)).to.deep.equal(['reserved', '3/2', 'paid', '1/0']);
  });
});
