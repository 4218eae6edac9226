import { InMemoryProductRepository } from '@stock/persistence-memory';
import { MikroOrmProductRepository } from '@stock/persistence-mikro-orm';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPersistence } from '../src';

chai.use(chaiAsPromised);
const OPTIONS = { idempotencyTtlMs: 60_000 };
const { expect } = chai;

describe('openPersistence', () => {
  it('picks the adapter from the connection string alone', async () => {
    const memory = await openPersistence('memory:', OPTIONS);
    expect(memory.repository).to.be.instanceOf(InMemoryProductRepository);
    const directory = mkdtempSync(join(tmpdir(), 'stock-pick-'));
    const sqlite = await openPersistence(`sqlite:${join(directory, 'x.db')}`, OPTIONS);
    try {
      expect(sqlite.repository).to.be.instanceOf(MikroOrmProductRepository);
    } finally {
      await sqlite.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('refuses a connection string it does not know', async () => {
    await expect(openPersistence('mysql://localhost/stock', OPTIONS)).to.be.rejectedWith(/Unsupported DATABASE_URL/);
  });
});
