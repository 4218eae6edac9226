import {
  type Clock,
  IdempotencyKeyReusedError,
  type IdempotentRequest,
  type OnceResult,
  UnavailableError,
  type UnitOfWork,
  ValidationError,
} from '@platform/kernel';
import {
  DEFAULT_LOCATION_ID,
  isRefusal,
  type Location,
  type MovementContext,
  ProductStock,
  type StockTransaction,
} from '@stock/domain';
import { actorOf } from '../options';
import {
  type BatchOutcome,
  type BatchRefused,
  ImportBatch,
  type NumberedRow,
  onHandProblem,
  refusedByStore,
  type RowError,
  type RowOutcome,
  type RowRefused,
  sameDetails,
  StoreRefusal,
  updatedDetails,
} from './import-batch';
import {
  type ImportRow,
  newProductDetails,
  problemsOf,
  type ProductRowInput,
  readImportRow,
  UnreadableRow,
} from './import-row';
import {
  addProduct,
  decided,
  DEFAULT_STOCK_CHANGE_SETTINGS,
  saveChange,
  type StockChangeSettings,
  withFills,
} from '../stock/stock-changes';

export type { RowError } from './import-batch';

/** What an import did (or, for a dry run, would do). */
export interface ImportResult {
  readonly created: number;
  readonly updated: number;
  /** Rows that matched their product exactly, its on hand at the row's location included. */
  readonly unchanged: number;
  readonly failed: number;
  /** The first `maxReportedErrors` failed rows, in row order: a body of bad rows cannot fill the memory. */
  readonly errors: readonly RowError[];
}

/** How far a running import is: every `progressEvery` rows. */
export interface ImportProgress extends Omit<ImportResult, 'errors'> {
  readonly rows: number;
}

export interface ImportSettings extends StockChangeSettings {
  /** Rows applied in one transaction. */
  readonly batchSize: number;
  /** Rows read between two progress reports. */
  readonly progressEvery: number;
  readonly maxReportedErrors: number;
}

export const DEFAULT_IMPORT_SETTINGS: ImportSettings = {
  ...DEFAULT_STOCK_CHANGE_SETTINGS,
  batchSize: 500,
  progressEvery: 10_000,
  maxReportedErrors: 1000,
};

/**
 * An import's Idempotency-Key: the fingerprint is a digest of the whole body,
 * known only once every row has been read.
 */
export interface ImportIdempotency {
  readonly scope: string;
  readonly key: string;
  fingerprint(): string;
}

export interface ImportOptions {
  /** Every row applies or none does: one transaction, rolled back when any row fails. */
  readonly atomic?: boolean;
  /** Plans every row against the data as it is and changes nothing (each batch's transaction rolls back). */
  readonly dryRun?: boolean;
  /** The same import answered once per key; a dry run records nothing. */
  readonly idempotency?: ImportIdempotency;
  readonly requestId?: string;
  readonly caller?: string;
  onProgress?(progress: ImportProgress): void;
}

/** The result another import with the same idempotency key recorded while this one ran: this one answers it. */
interface Recorded {
  readonly recorded: ImportResult;
}

/** How a transaction ends: it commits what its work did, or rolls back with why (a dry run, a refusal, a record). */
type Ending<Committed, RolledBack> = { readonly commit: Committed } | { readonly rollBack: RolledBack };

/** Carries a roll-back's answer out of the unit of work, which rolls back only on a throw; `inTransaction`'s own. */
class RollBack<T> extends Error {
  constructor(readonly answer: T) {
    super('Rolled back on purpose.');
  }
}

/**
 * Runs `work` in one transaction and answers how it ended. What the work answers decides: a roll-back is thrown (the
 * unit of work rolls back only on a throw) and caught here at once, so refusals travel as values everywhere else.
 */
async function inTransaction<C, R>(
  unitOfWork: UnitOfWork<StockTransaction>,
  work: (tx: StockTransaction) => Promise<Ending<C, R>>,
): Promise<Ending<C, R>> {
  let rollBack: RollBack<R> | undefined;
  try {
    return await unitOfWork.run(async (tx) => {
      const ending = await work(tx);
      if ('rollBack' in ending) throw (rollBack = new RollBack(ending.rollBack));
      return ending;
    });
  } catch (error) {
    if (rollBack === undefined || error !== rollBack) throw error;
    return { rollBack: rollBack.answer };
  }
}

/** The running totals of an import. */
class Tally {
  created = 0;
  updated = 0;
  unchanged = 0;
  failed = 0;
  readonly errors: RowError[] = [];

  constructor(private readonly maxReportedErrors: number) {}

  fail(failure: RowError): void {
    this.failed += 1;
    if (this.errors.length < this.maxReportedErrors) this.errors.push(failure);
  }

  add({ counts, failures }: BatchOutcome): void {
    this.created += counts.created;
    this.updated += counts.updated;
    this.unchanged += counts.unchanged;
    for (const failure of failures.sort((a, b) => a.row - b.row)) this.fail(failure);
  }

  /** The result once `outcome` is added too, leaving these totals as they are (its transaction may yet roll back). */
  with({ counts, failures }: BatchOutcome): ImportResult {
    const { created, updated, unchanged, failed, errors } = this.result();
    return {
      created: created + counts.created,
      updated: updated + counts.updated,
      unchanged: unchanged + counts.unchanged,
      failed: failed + failures.length,
      errors: [...errors, ...failures].sort((a, b) => a.row - b.row).slice(0, this.maxReportedErrors),
    };
  }

  result(): ImportResult {
    const { created, updated, unchanged, failed } = this;
    return { created, updated, unchanged, failed, errors: [...this.errors].sort((a, b) => a.row - b.row) };
  }
}

export const importResultFormat = {
  serialise: (result: ImportResult): string => JSON.stringify(result),
  deserialise: (text: string): ImportResult => JSON.parse(text) as ImportResult,
};

/**
 * Upserts products from rows (CSV or NDJSON, already split into columns):
 * by id when a row has one, else by SKU, else a new product. Each row is
 * parsed with the domain's rules and planned before anything is written, so a
 * row that fails is reported and the others go on; rows are applied a batch
 * per transaction. A row's onHand sets its location's on hand through the
 * stock path every arrival takes (lock, ProductStock.adjust, one `imported`
 * movement, backorders filled, low stock decided), so the ledger sums as for
 * any other change.
 */
export class ImportProducts {
  constructor(
    private readonly unitOfWork: UnitOfWork<StockTransaction>,
    private readonly clock: Clock,
    private readonly settings: ImportSettings = DEFAULT_IMPORT_SETTINGS,
  ) {}

  async execute(
    rows: AsyncIterable<ImportRow | UnreadableRow>,
    options: ImportOptions = {},
  ): Promise<OnceResult<ImportResult>> {
    const idempotency = options.dryRun ? undefined : options.idempotency;
    if (idempotency) {
      const recorded = await this.recorded(rows, idempotency);
      if (recorded) return { value: recorded, replayed: true };
    }
    const answer = await this.run(rows, options, idempotency);
    return 'recorded' in answer ? { value: answer.recorded, replayed: true } : { value: answer, replayed: false };
  }

  /**
   * The result recorded for the key, after reading every row (their digest is
   * the fingerprint); undefined, with nothing read, when none is recorded.
   */
  private async recorded(
    rows: AsyncIterable<unknown>,
    idempotency: ImportIdempotency,
  ): Promise<ImportResult | undefined> {
    const { scope, key } = idempotency;
    const request = { scope, key, fingerprint: '' };
    const record = await this.unitOfWork.run((tx) => tx.idempotency.find(request), { singleCall: true });
    if (!record) return undefined;
    for await (const _row of rows); // the fingerprint is of the whole body
    if (record.fingerprint !== idempotency.fingerprint()) throw new IdempotencyKeyReusedError(key);
    return importResultFormat.deserialise(record.result);
  }

  private async run(
    rows: AsyncIterable<ImportRow | UnreadableRow>,
    options: ImportOptions,
    idempotency: ImportIdempotency | undefined,
  ): Promise<ImportResult | Recorded> {
    const { batchSize, progressEvery, maxReportedErrors } = this.settings;
    const tally = new Tally(maxReportedErrors);
    if (options.atomic) return this.runAtomic(rows, options, this.contextOf(options), idempotency);
    const batch: NumberedRow[] = [];
    let row = 0;
    /** Applies the rows read so far; an import's last batch with a key records the result, or finds it recorded. */
    const flush = async (last: boolean): Promise<Recorded | undefined> => {
      const done = last && idempotency ? tally : undefined;
      const outcome = await this.applyBatch(batch.splice(0), options, this.contextOf(options), done, idempotency);
      if ('recorded' in outcome) return outcome;
      tally.add(outcome);
      return undefined;
    };
    for await (const cells of rows) {
      row += 1;
      const input = cells instanceof UnreadableRow ? [...cells.problems] : readImportRow(cells);
      if (Array.isArray(input)) tally.fail({ row, problems: input });
      else batch.push({ row, input });
      if (batch.length >= batchSize) {
        const recorded = await flush(false);
        if (recorded) return recorded;
      }
      if (row % progressEvery === 0) options.onProgress?.({ rows: row, ...tally.result() });
    }
    return (await flush(true)) ?? tally.result();
  }

  /** Every row in one transaction: any failure rolls all of them back, and the answer counts none applied. */
  private async runAtomic(
    rows: AsyncIterable<ImportRow | UnreadableRow>,
    options: ImportOptions,
    context: MovementContext,
    idempotency: ImportIdempotency | undefined,
  ): Promise<ImportResult | Recorded> {
    const { progressEvery, maxReportedErrors } = this.settings;
    const tally = new Tally(maxReportedErrors);
    let attempts = 0;
    const work = async (tx: StockTransaction): Promise<Ending<ImportResult, Recorded | undefined>> => {
      // A store that runs a transaction again (a deadlock victim) would find the rows already read.
      if (++attempts > 1)
        throw new UnavailableError(
          'IMPORT_UNAVAILABLE',
          'The atomic import was rolled back by the database; send it again.',
        );
      let row = 0;
      let refused = false;
      const locations = await this.locationsByCode(tx);
      for await (const cells of rows) {
        row += 1;
        const input = cells instanceof UnreadableRow ? [...cells.problems] : readImportRow(cells);
        if (Array.isArray(input)) tally.fail({ row, problems: input });
        // After a store refused a row the transaction may be unusable: the rest are only read.
        else if (!refused) {
          const outcome = await this.applyRow(tx, { row, input }, locations, context);
          if (typeof outcome === 'string') tally[outcome] += 1;
          else if ('refused' in outcome) {
            tally.fail(outcome.failure);
            refused = true;
          } else tally.fail(outcome);
        }
        if (row % progressEvery === 0) options.onProgress?.({ rows: row, ...tally.result() });
      }
      const result = tally.result();
      if (result.failed > 0 || options.dryRun) return { rollBack: undefined };
      const recorded = idempotency && (await this.record(tx, idempotency, result));
      return recorded ? { rollBack: recorded } : { commit: result };
    };
    const ending = await inTransaction(this.unitOfWork, work);
    if ('commit' in ending) return ending.commit;
    if (ending.rollBack) return ending.rollBack;
    const result = tally.result();
    return result.failed > 0 ? { ...result, created: 0, updated: 0, unchanged: 0 } : result;
  }

  /**
   * Applies a batch in one transaction. A row a store refuses mid-batch (its
   * error may leave the transaction unusable, as on PostgreSQL) is reported
   * and the batch runs again without it. The last batch of an import with a
   * key records the import's result in its own transaction.
   */
  private async applyBatch(
    batch: readonly NumberedRow[],
    options: ImportOptions,
    context: MovementContext,
    totals: Tally | undefined,
    idempotency: ImportIdempotency | undefined,
  ): Promise<BatchOutcome | Recorded> {
    const refused: RowError[] = [];
    let rows = batch;
    // With webhook events on, each movement writes its stock.level.changed: the one-row path writes them, the
    // set-based one (a statement per batch) does not, so it is not taken.
    let setBased = !this.settings.webhookEvents;
    for (;;) {
      const ending = await inTransaction(
        this.unitOfWork,
        async (tx): Promise<Ending<BatchOutcome, BatchOutcome | RowRefused | BatchRefused | Recorded>> => {
          const outcome = setBased
            ? await this.applyRowsAtOnce(tx, rows, context)
            : await this.applyRows(tx, rows, context);
          if ('refused' in outcome) return { rollBack: outcome };
          outcome.failures.push(...refused);
          if (options.dryRun) return { rollBack: outcome };
          const recorded = totals && idempotency && (await this.record(tx, idempotency, totals.with(outcome)));
          return recorded ? { rollBack: recorded } : { commit: outcome };
        },
      );
      if ('commit' in ending) return ending.commit;
      const ended = ending.rollBack;
      if (!('refused' in ended)) return ended;
      // A set-based write refused names no row: the batch runs again a row at a time, which does.
      if (ended.refused === 'batch') setBased = false;
      else {
        const { failure } = ended;
        refused.push(failure);
        rows = rows.filter(({ row }) => row !== failure.row);
      }
    }
  }

  /** A batch set-based (ImportBatch); the rows it cannot settle alone through applyRow, after its writes. */
  private async applyRowsAtOnce(
    tx: StockTransaction,
    rows: readonly NumberedRow[],
    context: MovementContext,
  ): Promise<BatchOutcome | RowRefused | BatchRefused> {
    if (rows.length === 0) return { counts: { created: 0, updated: 0, unchanged: 0 }, failures: [] };
    const locations = await this.locationsByCode(tx);
    const batch = new ImportBatch(tx, locations, context, this.settings);
    return batch.run(rows, (row) => this.applyRow(tx, row, locations, context));
  }

  private async applyRows(
    tx: StockTransaction,
    rows: readonly NumberedRow[],
    context: MovementContext,
  ): Promise<BatchOutcome | RowRefused> {
    const counts = { created: 0, updated: 0, unchanged: 0 };
    const failures: RowError[] = [];
    if (rows.length === 0) return { counts, failures };
    const locations = await this.locationsByCode(tx);
    for (const row of rows) {
      const outcome = await this.applyRow(tx, row, locations, context);
      if (typeof outcome === 'string') counts[outcome] += 1;
      else if ('refused' in outcome) return outcome;
      else failures.push(outcome);
    }
    return { counts, failures };
  }

  /** Records the import's result under its key, or answers what another import with the key recorded first. */
  private async record(
    tx: StockTransaction,
    idempotency: ImportIdempotency,
    result: ImportResult,
  ): Promise<Recorded | undefined> {
    const request: IdempotentRequest = { ...idempotency, fingerprint: idempotency.fingerprint() };
    const claim = await tx.idempotency.claim(request);
    if (claim.status === 'recorded') {
      if (claim.fingerprint !== request.fingerprint) throw new IdempotencyKeyReusedError(request.key);
      return { recorded: importResultFormat.deserialise(claim.result) };
    }
    if (claim.status === 'claimed') await tx.idempotency.complete(request, importResultFormat.serialise(result));
    return undefined;
  }

  /** The movements' context: the time each batch is applied, the request and the caller. */
  private contextOf({ requestId, caller }: ImportOptions): MovementContext {
    return { at: this.clock(), requestId, actor: actorOf(caller) };
  }

  private async locationsByCode(tx: StockTransaction): Promise<ReadonlyMap<string, Location>> {
    return new Map((await tx.locations.list()).map((location) => [location.code, location]));
  }

  /**
   * One row: its product found (by id, else by SKU) and locked, everything
   * planned, then written. A problem found before any write is answered as the
   * row's failure; a store's refusal after one as RowRefused, which ends the transaction.
   */
  private async applyRow(
    tx: StockTransaction,
    { row, input }: NumberedRow,
    locations: ReadonlyMap<string, Location>,
    context: MovementContext,
  ): Promise<RowOutcome | RowError | RowRefused> {
    const fail = (...problems: string[]): RowError => ({ row, problems });
    const location = input.locationCode === undefined ? DEFAULT_LOCATION_ID : locations.get(input.locationCode)?.id;
    if (location === undefined) return fail(`locationCode: no location has the code '${input.locationCode}'`);
    const stock = await this.stockOf(tx, input);
    if (typeof stock === 'string') return fail(stock);
    // Found by id, a row may give the product a SKU: one another product has is the row's problem, not a refusal.
    if (stock && input.sku !== undefined && input.sku.toLowerCase() !== stock.product.sku?.toLowerCase()) {
      const owner = await tx.products.findBySku(input.sku);
      if (owner) return fail(`sku: product ${owner.id} has the SKU '${owner.sku}' (SKUs are compared ignoring case)`);
    }
    const written = await refusedByStore(
      stock ? this.update(tx, stock, input, location, context, fail) : this.create(tx, input, location, context, fail),
    );
    return written instanceof StoreRefusal ? { refused: 'row', failure: fail(...problemsOf(written.error)) } : written;
  }

  /** The product a row names, locked with its levels: by id, by SKU, none (a new one), or why the row names none. */
  private async stockOf(tx: StockTransaction, input: ProductRowInput): Promise<ProductStock | undefined | string> {
    if (input.id !== undefined) return (await tx.stock.lock(input.id)) ?? `id: no product has the id ${input.id}`;
    if (input.sku === undefined) return undefined;
    const product = await tx.products.findBySku(input.sku);
    // Removed between the two reads: the row makes it anew.
    return product && tx.stock.lock(product.id);
  }

  private async create(
    tx: StockTransaction,
    input: ProductRowInput,
    locationId: number,
    context: MovementContext,
    fail: (...problems: string[]) => RowError,
  ): Promise<RowOutcome | RowError> {
    const details = newProductDetails(input);
    if (Array.isArray(details)) return fail(...details);
    const product = await addProduct(tx, details, context, this.settings);
    const onHand = input.onHand ?? 0;
    if (onHand === 0) return 'created';
    const imported = ProductStock.ofNew(product).adjust(locationId, onHand, this.settings, { kind: 'imported' });
    if (isRefusal(imported)) return fail(`onHand: must be at most ${imported.available}`);
    await saveChange(tx, imported, context, this.settings);
    return 'created';
  }

  private async update(
    tx: StockTransaction,
    stock: ProductStock,
    input: ProductRowInput,
    locationId: number,
    context: MovementContext,
    fail: (...problems: string[]) => RowError,
  ): Promise<RowOutcome | RowError> {
    const { product } = stock;
    const delta = input.onHand === undefined ? 0 : input.onHand - stock.levelAt(locationId).onHand;
    const imported = delta === 0 ? undefined : stock.adjust(locationId, delta, this.settings, { kind: 'imported' });
    if (imported && isRefusal(imported)) return fail(onHandProblem(stock, locationId, imported.status));
    const same = sameDetails(product, input);
    if (same && !imported) return 'unchanged';
    let current = product;
    if (!same) {
      const details = updatedDetails(product, input);
      if (details instanceof ValidationError) return fail(...problemsOf(details));
      const outcome = await tx.products.updateDetails(product.id, details, product.version);
      if (outcome.status !== 'updated') return fail(`id: product ${product.id} changed while it was imported`);
      current = outcome.product;
    }
    if (imported) {
      // Decided again on the product as its details now are: its low-stock threshold may be a new one.
      const change = decided(stock.withProduct(current).adjust(locationId, delta, this.settings, { kind: 'imported' }));
      await saveChange(tx, await withFills(tx, change, locationId, delta, this.settings), context, this.settings);
    }
    return 'updated';
  }
}
