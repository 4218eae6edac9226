export interface UnitOfWorkOptions {
  /**
   * The work makes exactly one repository call, which every store makes
   * atomic by itself. A store that makes that call a single SQL statement sends
   * it without BEGIN and COMMIT: one round trip, and a hot row's lock held for
   * the shortest time. A second statement in such work throws.
   */
  readonly singleCall?: boolean;
}

/**
 * One database transaction, owned by the use case that calls `run`. The work
 * reaches every repository through the transaction it is handed: nothing
 * finds a transaction implicitly. It commits when `work` resolves and rolls
 * back, leaving nothing behind, when it throws. A transaction handle used
 * after `run` has settled refuses to work.
 */
export interface UnitOfWork<Transaction> {
  run<T>(work: (tx: Transaction) => Promise<T>, options?: UnitOfWorkOptions): Promise<T>;
}
