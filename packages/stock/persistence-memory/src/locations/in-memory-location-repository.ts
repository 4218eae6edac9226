import type { InMemoryTransaction } from '@platform/persistence/memory';
import {
  byPriority,
  DEFAULT_LOCATION_ID,
  type Location,
  type LocationDraft,
  locationIsEmpty,
  type LocationRepository,
} from '@stock/domain';
import type { InMemoryStockTables } from '../in-memory-stock-tables';

/** Locations in an in-memory table; the default one is there from the tables' construction. */
export class InMemoryLocationRepository implements LocationRepository {
  constructor(
    private readonly tables: InMemoryStockTables,
    private readonly tx?: InMemoryTransaction,
  ) {}

  async list(): Promise<Location[]> {
    return [...this.tables.locations.values(this.tx)].sort(byPriority);
  }

  async findById(id: number): Promise<Location | undefined> {
    return this.tables.locations.get(id, this.tx);
  }

  async add(draft: LocationDraft): Promise<Location | 'code-taken'> {
    for (const location of this.tables.locations.values(this.tx)) if (location.code === draft.code) return 'code-taken';
    const location = { id: this.tables.nextLocationId(), code: draft.code, name: draft.name, priority: draft.priority };
    this.tables.locations.set(location.id, location, this.writable());
    return location;
  }

  async remove(id: number): Promise<'removed' | 'not-found' | 'not-empty'> {
    // As the databases' foreign key from the default location's levels, which the migration's rows keep: it stays.
    if (id === DEFAULT_LOCATION_ID) throw new Error('The default location is never removed.');
    if (!this.tables.locations.get(id, this.tx)) return 'not-found';
    const levels = [...this.tables.levels.entries(this.tx)].filter(([, level]) => level.locationId === id);
    if (!locationIsEmpty(levels.map(([, level]) => level))) return 'not-empty';
    const leaving = [...this.tables.transfers.values(this.tx)].some(
      (transfer) => transfer.status === 'in-transit' && transfer.fromLocationId === id,
    );
    if (leaving) return 'not-empty';
    const tx = this.writable();
    for (const [key] of levels) this.tables.levels.delete(key, tx);
    this.tables.locations.delete(id, tx);
    return 'removed';
  }

  private writable(): InMemoryTransaction {
    if (!this.tx) throw new Error('Locations are written inside a unit of work.');
    return this.tx;
  }
}
