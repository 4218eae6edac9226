const DELETED = Symbol('deleted');
type Staged<V> = V | typeof DELETED;

/**
 * The writes of one transaction, staged per table until it commits. Reads
 * through the transaction see them; reads outside see only committed rows.
 */
export class InMemoryTransaction {
  private readonly staged = new Map<InMemoryTable<unknown, unknown>, Map<unknown, unknown>>();
  private state: 'open' | 'committed' | 'rolled back' = 'open';

  /** The rows `table` has staged in this transaction. */
  stagedIn<K, V>(table: InMemoryTable<K, V>): Map<K, Staged<V>> {
    if (this.state !== 'open') throw new Error(`This transaction has ${this.state}: it cannot be used any more.`);
    let rows = this.staged.get(table);
    if (!rows) this.staged.set(table, (rows = new Map()));
    return rows as Map<K, Staged<V>>;
  }

  /** Reads without creating a staging map for tables this transaction never wrote. */
  peek<K, V>(table: InMemoryTable<K, V>): Map<K, Staged<V>> | undefined {
    if (this.state !== 'open') throw new Error(`This transaction has ${this.state}: it cannot be used any more.`);
    return this.staged.get(table) as Map<K, Staged<V>> | undefined;
  }

  commit(): void {
    for (const [table, rows] of this.staged) table.apply(rows);
    this.state = 'committed';
  }

  rollBack(): void {
    this.state = 'rolled back';
  }
}

/**
 * A table of rows by key. Map order is insertion order, and keys that only
 * grow (ids) are appended on commit, so iteration is key order for them.
 */
export class InMemoryTable<K, V> {
  private readonly rows = new Map<K, V>();

  get(key: K, tx?: InMemoryTransaction): V | undefined {
    const staged = tx?.peek(this);
    if (staged?.has(key)) {
      const value = staged.get(key)!;
      return value === DELETED ? undefined : value;
    }
    return this.rows.get(key);
  }

  set(key: K, value: V, tx: InMemoryTransaction): void {
    tx.stagedIn(this).set(key, value);
  }

  /** Answers whether a row was there to delete. */
  delete(key: K, tx: InMemoryTransaction): boolean {
    if (this.get(key, tx) === undefined) return false;
    tx.stagedIn(this).set(key, DELETED);
    return true;
  }

  /** Every row, committed ones in their order with staged changes applied, then rows new in `tx`. */
  *entries(tx?: InMemoryTransaction): IterableIterator<[K, V]> {
    const staged = tx?.peek(this);
    for (const [key, value] of this.rows) {
      if (!staged?.has(key)) yield [key, value];
      else if (staged.get(key) !== DELETED) yield [key, staged.get(key) as V];
    }
    if (!staged) return;
    for (const [key, value] of staged) if (!this.rows.has(key) && value !== DELETED) yield [key, value];
  }

  *values(tx?: InMemoryTransaction): IterableIterator<V> {
    for (const [, value] of this.entries(tx)) yield value;
  }

  /** Committed rows only: what a reader outside any transaction sees. */
  get size(): number {
    return this.rows.size;
  }

  /** Called by InMemoryTransaction.commit. */
  apply(staged: Map<unknown, unknown>): void {
    for (const [key, value] of staged) {
      if (value === DELETED) this.rows.delete(key as K);
      else this.rows.set(key as K, value as V);
    }
  }
}

/**
 * Runs transactions one at a time, in arrival order: serialisable, which is
 * what a single-process store for tests and demos can afford. A transaction
 * whose work throws is rolled back: none of its writes is ever seen.
 */
export class InMemoryDatabase {
  private tail: Promise<void> = Promise.resolve();

  async transaction<T>(work: (tx: InMemoryTransaction) => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    const tx = new InMemoryTransaction();
    try {
      const result = await work(tx);
      tx.commit();
      return result;
    } catch (error) {
      tx.rollBack();
      throw error;
    } finally {
      release();
    }
  }
}
