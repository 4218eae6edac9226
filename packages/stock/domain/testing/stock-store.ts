import type { OutboxStore } from '@platform/kernel';
import type {
  LocationRepository,
  ProductRepository,
  ProductStockRepository,
  ReservationRepository,
  ReturnRepository,
  ShipmentRepository,
  StockMovementRepository,
  StockUnitOfWork,
  TransferRepository,
} from '../src';

/** One adapter's stock storage, as the contract suites drive it. */
export interface StockStoreUnderTest {
  /** The use cases' unit of work; `changesAtOnce` when its stock makes plain changes in one statement. */
  readonly unitOfWork: StockUnitOfWork;
  /** Committed state, read outside any unit of work. */
  readonly products: ProductRepository;
  readonly locations: LocationRepository;
  /** Reads only (`list`): `lock` and `save` belong inside a unit of work. */
  readonly stock: ProductStockRepository;
  readonly transfers: TransferRepository;
  readonly reservations: ReservationRepository;
  readonly movements: StockMovementRepository;
  readonly shipments: ShipmentRepository;
  readonly returns: ReturnRepository;
  /** The relay's side of the outbox: what the units of work published. */
  readonly outbox: OutboxStore;
  /**
   * Runs `work` while the trace provider the store's writes were handed answers `traceId` (it answers none
   * otherwise); absent when the store is handed none.
   */
  withTrace?<T>(traceId: string, work: () => Promise<T>): Promise<T>;
  /** Empties the store between tests, back to the default location alone. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** Opens a store for one suite; `now` is the clock its idempotency records expire by. May skip the suite. */
export type OpenStockStore = (context: Mocha.Context, now: () => number) => Promise<StockStoreUnderTest>;

/** The trace a store's writes read (hand `traceId` to the store), and the `withTrace` that sets it while work runs. */
export function traceSlot() {
  let trace: string | undefined;
  const withTrace = async <T>(traceId: string, work: () => Promise<T>): Promise<T> => {
    trace = traceId;
    try {
      return await work();
    } finally {
      trace = undefined;
    }
  };
  return { traceId: (): string | undefined => trace, withTrace };
}

/**
 * The calling describe's tests share one store: opened before them and handed to `opened`, emptied before each test
 * (then `eachTest` runs: a clock set back, a use case over the fresh store), and closed after them.
 */
export function onOneStore(
  open: OpenStockStore,
  opened: (store: StockStoreUnderTest) => void,
  eachTest: () => unknown = () => {},
): void {
  let store: StockStoreUnderTest | undefined;
  before(async function () {
    store = await open(this, Date.now);
    opened(store);
  });
  beforeEach(async () => {
    await store!.reset();
    await eachTest();
  });
  after(async () => store?.close());
}
