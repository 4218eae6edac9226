import { openInMemoryStockStore } from '@stock/persistence-memory/testing';
import { openScratchStore } from '@stock/persistence-sql/testing';
import type { OpenStockStore, StockStoreUnderTest } from '@stock/domain/testing';

/** Every store the use cases run on, named as the suites' titles say it: memory, SQLite and PostgreSQL. */
export const STORES: readonly { name: string; open: OpenStockStore }[] = [
  { name: 'in memory', open: openInMemoryStockStore },
  { name: 'on sqlite', open: openScratchStore('sqlite') },
  { name: 'on postgresql', open: openScratchStore('postgresql') },
];

/**
 * The calling describe's tests share one store: opened before them and handed to `opened`, emptied before each test
 * (then `eachTest` runs: a clock set back, a use case over the fresh store), and closed after them.
 */
export function onOneStore(
  open: OpenStockStore,
  opened: (store: StockStoreUnderTest) => void,
  eachTest: () => void = () => {},
): void {
  let store: StockStoreUnderTest | undefined;
  before(async function () {
    store = await open(this, Date.now);
    opened(store);
  });
  beforeEach(async () => {
    await store!.reset();
    eachTest();
  });
  after(async () => store?.close());
}
