import { outboxStoreContract } from '@platform/test-kit';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import {
  InMemoryDatabase,
  InMemoryOutbox,
  InMemoryOutboxStore,
  InMemoryTable,
  type OutboxMessageRecord,
} from '../src/memory';

chai.use(chaiAsPromised);

outboxStoreContract('in memory', async () => {
  const database = new InMemoryDatabase();
  let table = new InMemoryTable<string, OutboxMessageRecord>();
  let store = new InMemoryOutboxStore(database, table);
  return {
    write: (work) => database.transaction((tx) => work(new InMemoryOutbox(table, tx))),
    get store() {
      return store;
    },
    get otherStore() {
      return store;
    },
    reset: async () => {
      table = new InMemoryTable();
      store = new InMemoryOutboxStore(database, table);
    },
    close: async () => undefined,
  };
});
