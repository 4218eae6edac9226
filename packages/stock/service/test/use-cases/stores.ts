import { openInMemoryStockStore } from '@stock/persistence-memory/testing';
import { openScratchStore } from '@stock/persistence-sql/testing';
import type { OpenStockStore } from '@stock/domain/testing';

/** Every store the use cases run on, named as the suites' titles say it: memory, SQLite and PostgreSQL. */
export const STORES: readonly { name: string; open: OpenStockStore }[] = [
  { name: 'in memory', open: openInMemoryStockStore },
  { name: 'on sqlite', open: openScratchStore('sqlite') },
  { name: 'on postgresql', open: openScratchStore('postgresql') },
];
