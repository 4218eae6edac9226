import { openInMemorySalesStore } from '@sales/persistence-memory/testing';
import { openScratchStore } from '@sales/persistence-sql/testing';
import type { OpenSalesStore } from '@sales/domain/testing';

/** Every store the use cases run on, named as the suites' titles say it: memory, SQLite and PostgreSQL. */
export const STORES: readonly { name: string; open: OpenSalesStore }[] = [
  { name: 'in memory', open: openInMemorySalesStore },
  { name: 'on sqlite', open: openScratchStore('sqlite') },
  { name: 'on postgresql', open: openScratchStore('postgresql') },
];
