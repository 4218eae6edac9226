import type { UnitOfWork } from '@platform/kernel';
import {
  DEFAULT_LOCATION_ID,
  DefaultLocationError,
  type LevelView,
  levelAvailable,
  type Location,
  LocationCodeTakenError,
  type LocationDraft,
  LocationNotEmptyError,
  LocationNotFoundError,
  ProductNotFoundError,
  type StockTransaction,
} from '@stock/domain';

/** A product's level at a location, as the API shows it. */
export interface StockLevelView extends LevelView {
  readonly available: number;
}

/** The locations stock is kept at, and a product's stock at each. */
export class Locations {
  constructor(private readonly unitOfWork: UnitOfWork<StockTransaction>) {}

  /** Every location, lower priority first, then lower id. */
  list(): Promise<Location[]> {
    return this.unitOfWork.run((tx) => tx.locations.list(), { singleCall: true });
  }

  /** Stores a new location; a code already taken throws LocationCodeTakenError. */
  async create(draft: LocationDraft): Promise<Location> {
    const added = await this.unitOfWork.run((tx) => tx.locations.add(draft), { singleCall: true });
    if (added === 'code-taken') throw new LocationCodeTakenError(draft.code);
    return added;
  }

  /** Removes a location nothing is kept at; the default one stays. */
  async remove(id: number): Promise<void> {
    if (id === DEFAULT_LOCATION_ID) throw new DefaultLocationError(id);
    const outcome = await this.unitOfWork.run((tx) => tx.locations.remove(id), { singleCall: true });
    if (outcome === 'not-found') throw new LocationNotFoundError(id);
    if (outcome === 'not-empty') throw new LocationNotEmptyError(id);
  }

  /** A product's stock at each location it has a level at, in location id order. */
  async levelsOf(productId: number): Promise<StockLevelView[]> {
    const levels = await this.unitOfWork.run((tx) => tx.stock.list(productId), { singleCall: true });
    if (!levels) throw new ProductNotFoundError(productId);
    return levels.map((level) => ({ ...level, available: levelAvailable(level) }));
  }
}
