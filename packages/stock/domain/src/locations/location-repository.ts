import type { Location, LocationDraft } from './location';

/** The locations, in one transaction or in none (reads). */
export interface LocationRepository {
  /** Every location, lower priority first, then lower id: the order the `priority` allocation fills from. */
  list(): Promise<Location[]>;
  findById(id: number): Promise<Location | undefined>;
  /** Stores a new location, unless its code is taken (by any location, whatever its case of letters is: a-z only). */
  add(draft: LocationDraft): Promise<Location | 'code-taken'>;
  /**
   * Removes a location with its empty levels, unless a product has stock,
   * holds or incoming units there (locationIsEmpty, as the store's guard), or
   * a transfer in transit left from it (a cancel would return its units there).
   * The default location is never asked to go.
   */
  remove(id: number): Promise<'removed' | 'not-found' | 'not-empty'>;
}
