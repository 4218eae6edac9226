import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { InMemoryDatabase, InMemoryTable } from '../src/memory';

chai.use(chaiAsPromised);
const { expect } = chai;

describe('InMemoryDatabase', () => {
  it('shows a transaction its staged writes, and readers outside only what committed', async () => {
    const database = new InMemoryDatabase();
    const table = new InMemoryTable<number, string>();
    await database.transaction(async (tx) => {
      table.set(1, 'one', tx);
      table.set(2, 'two', tx);
      expect(table.get(1, tx)).to.equal('one');
      expect(table.get(1)).to.equal(undefined);
      expect([...table.values(tx)]).to.deep.equal(['one', 'two']);
    });
    expect([...table.values()]).to.deep.equal(['one', 'two']);
    await database.transaction(async (tx) => {
      expect(table.delete(1, tx)).to.equal(true);
      table.set(2, 'TWO', tx);
      table.set(3, 'three', tx);
      expect([...table.entries(tx)]).to.deep.equal([
        [2, 'TWO'],
        [3, 'three'],
      ]);
      expect([...table.values()]).to.deep.equal(['one', 'two']);
    });
    expect([...table.values()]).to.deep.equal(['TWO', 'three']);
  });

  it('drops every write of a transaction whose work throws, and refuses to use it afterwards', async () => {
    const database = new InMemoryDatabase();
    const table = new InMemoryTable<number, string>();
    let leaked: Parameters<Parameters<InMemoryDatabase['transaction']>[0]>[0] | undefined;
    await expect(
      database.transaction(async (tx) => {
        leaked = tx;
        table.set(1, 'never', tx);
        throw new Error('fail');
      }),
    ).to.be.rejectedWith('fail');
    expect(table.size).to.equal(0);
    expect(() => table.set(2, 'late', leaked!)).to.throw(/rolled back/);
  });

  it('runs transactions one at a time, in the order they arrive', async () => {
    const database = new InMemoryDatabase();
    const order: string[] = [];
    const slow = database.transaction(async () => {
      order.push('first starts');
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push('first ends');
    });
    const fast = database.transaction(async () => {
      order.push('second runs');
    });
    await Promise.all([slow, fast]);
    expect(order).to.deep.equal(['first starts', 'first ends', 'second runs']);
  });
});
