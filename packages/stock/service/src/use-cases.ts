import type { Clock, UnitOfWork } from '@platform/kernel';
import {
  AdjustStock,
  ChangeStockState,
  CommitForOrder,
  CommitReservation,
  CreateProduct,
  DEFAULT_IMPORT_SETTINGS,
  DeleteProduct,
  ExpireReservations,
  ExportProducts,
  GetProduct,
  GetProducts,
  GetReservation,
  GetReturn,
  GetShipment,
  ImportProducts,
  ListProducts,
  ListReturns,
  ListShipments,
  ListStockMovements,
  Locations,
  ReleaseForOrder,
  ReceiveReturn,
  ReleaseReservation,
  ReserveForOrder,
  ReserveStock,
  SearchProducts,
  ShipOrder,
  shippedOfOrder,
  StockTransfers,
  StreamProducts,
  UpdateProduct,
} from '@stock/application';
import type {
  AllocationStrategy,
  ProductRepository,
  ReservationRepository,
  ReturnRepository,
  ShipmentRepository,
  StockMovementRepository,
  StockTransaction,
} from '@stock/domain';
import { randomUUID } from 'node:crypto';

/** What the use cases run on: the storage's unit of work and its repositories for committed reads, and the clock. */
export interface StockUseCaseParts {
  readonly unitOfWork: UnitOfWork<StockTransaction>;
  readonly clock: Clock;
  readonly products: ProductRepository;
  readonly reservations: ReservationRepository;
  readonly movements: StockMovementRepository;
  readonly shipments: ShipmentRepository;
  readonly returns: ReturnRepository;
}

/** The settings the use cases read, from the service's configuration. */
export interface StockUseCaseSettings {
  readonly lowStockHysteresis: number;
  /** Whether stock changes write the events webhooks deliver (WEBHOOKS=on). */
  readonly webhookEvents: boolean;
  readonly reservationTtlSeconds: number;
  readonly reservationAllocation: AllocationStrategy;
  /** The consumer the inbox records sales' order events for (stock's queue). */
  readonly consumer: string;
}

/**
 * Every stock use case, built once over one storage: the HTTP app, the order events' handler and the reservation
 * expiry take their parts of this record.
 */
export function stockUseCases(
  { unitOfWork, clock, products, reservations, movements, shipments, returns }: StockUseCaseParts,
  settings: StockUseCaseSettings,
) {
  // Every use case that moves stock decides low-stock crossings with the same hysteresis, and writes the events for
  // webhooks (one per ledger movement, every hold) when they are on.
  const changes = { lowStockHysteresis: settings.lowStockHysteresis, webhookEvents: settings.webhookEvents };
  const holds = {
    clock,
    newId: randomUUID,
    defaultTtlSeconds: settings.reservationTtlSeconds,
    allocation: settings.reservationAllocation,
    ...changes,
  };
  // A paid order's cancel releases only what no shipment took.
  const forOrders = { ...holds, consumer: settings.consumer, shippedOf: shippedOfOrder };
  return {
    createProduct: new CreateProduct(unitOfWork, clock, changes),
    updateProduct: new UpdateProduct(unitOfWork, clock, changes),
    deleteProduct: new DeleteProduct(unitOfWork),
    adjustStock: new AdjustStock(unitOfWork, clock, changes),
    changeStockState: new ChangeStockState(unitOfWork, clock, changes),
    getProduct: new GetProduct(products),
    getProducts: new GetProducts(products),
    listProducts: new ListProducts(products),
    streamProducts: new StreamProducts(products),
    searchProducts: new SearchProducts(products),
    importProducts: new ImportProducts(unitOfWork, clock, { ...DEFAULT_IMPORT_SETTINGS, ...changes }),
    exportProducts: new ExportProducts(unitOfWork),
    listStockMovements: new ListStockMovements(products, movements),
    reserveStock: new ReserveStock(unitOfWork, holds),
    getReservation: new GetReservation(reservations),
    commitReservation: new CommitReservation(unitOfWork, clock, changes),
    releaseReservation: new ReleaseReservation(unitOfWork, clock, changes),
    expireReservations: new ExpireReservations(unitOfWork, clock, changes),
    locations: new Locations(unitOfWork),
    stockTransfers: new StockTransfers(unitOfWork, { clock, newId: randomUUID, ...changes }),
    shipOrder: new ShipOrder(unitOfWork, { clock, newId: randomUUID, ...changes }),
    getShipment: new GetShipment(shipments),
    listShipments: new ListShipments(shipments),
    receiveReturn: new ReceiveReturn(unitOfWork, { clock, newId: randomUUID, ...changes }),
    getReturn: new GetReturn(returns),
    listReturns: new ListReturns(returns),
    reserveForOrder: new ReserveForOrder(unitOfWork, forOrders),
    releaseForOrder: new ReleaseForOrder(unitOfWork, forOrders),
    commitForOrder: new CommitForOrder(unitOfWork, forOrders),
  };
}

export type StockUseCases = ReturnType<typeof stockUseCases>;
