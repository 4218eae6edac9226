import type { Row, SqlSession } from '@platform/persistence';
import type { Location, LocationDraft, LocationRepository } from '@stock/domain';
import { levelIsEmpty } from '../tables/stock-level';

const COLUMNS = '"id", "code", "name", "priority"';

/** Locations in SQL, on the session handed over. */
export class SqlLocationRepository implements LocationRepository {
  constructor(private readonly session: SqlSession) {}

  async list(): Promise<Location[]> {
    const rows = await this.session.all(`select ${COLUMNS} from "location" order by "priority", "id"`);
    return rows.map(toLocation);
  }

  async findById(id: number): Promise<Location | undefined> {
    const [row] = await this.session.all(`select ${COLUMNS} from "location" where "id" = ?`, [id]);
    return row && toLocation(row);
  }

  /** Codes are a-z, 0-9 and - only (LocationDraft), so the unique index is the whole check. */
  async add(draft: LocationDraft): Promise<Location | 'code-taken'> {
    const [row] = await this.session.all(
      `insert into "location" ("code", "name", "priority") values (?, ?, ?) on conflict ("code") do nothing returning ${COLUMNS}`,
      [draft.code, draft.name, draft.priority],
    );
    return row ? toLocation(row) : 'code-taken';
  }

  /**
   * Locks the location (PostgreSQL: a level another transaction is creating
   * there has locked it too, so one waits for the other), removes its empty
   * levels unless one is not empty (LEVEL_IS_EMPTY, rendered), then the location
   * unless a level is left. The levels' foreign key refuses the rest.
   */
  async remove(id: number): Promise<'removed' | 'not-found' | 'not-empty'> {
    const lock = this.session.dialect === 'postgresql' ? ' for update' : '';
    const [found] = await this.session.all(`select "id" from "location" where "id" = ?${lock}`, [id]);
    if (!found) return 'not-found';
    await this.session.run(
      `delete from "stock_level" where "location_id" = ? and not exists (select 1 from "stock_level" "held" where "held"."location_id" = ? and not (${levelIsEmpty('held')}))`,
      [id, id],
    );
    // A transfer in transit from here would have nowhere to go back to if it were cancelled.
    const removed = await this.session.run(
      `delete from "location" where "id" = ? and not exists (select 1 from "stock_level" where "location_id" = ?) and not exists (select 1 from "stock_transfer" where "from_location_id" = ? and "status" = 'in-transit')`,
      [id, id, id],
    );
    return removed > 0 ? 'removed' : 'not-empty';
  }
}

function toLocation(row: Row): Location {
  return { id: Number(row.id), code: String(row.code), name: String(row.name), priority: Number(row.priority) };
}
