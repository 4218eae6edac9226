import { type Row, type SqlSession, timeOf } from '@platform/persistence';
import type {
  Allocation,
  Backorder,
  Fill,
  HeldLine,
  LineHold,
  Reservation,
  ReservationLine,
  ReservationOrigin,
  ReservationRepository,
  ReservationStatus,
} from '@stock/domain';

const COLUMNS = '"id", "reference", "origin", "owner", "status", "lines", "expires_at", "created_at", "updated_at"';

/**
 * A reservation's row with what its lines hold, in one query: its allocations
 * and backorders aggregated as JSON arrays ([product, location, quantity] and
 * [product, quantity]) by subqueries on their primary keys.
 */
function withHolds(dialect: SqlSession['dialect']): string {
  const aggregate =
    dialect === 'postgresql'
      ? (items: string, order: string) => `coalesce(json_agg(json_build_array(${items}) order by ${order}), '[]')::text`
      : (items: string) => `json_group_array(json_array(${items}))`;
  const of = (table: string) => `from "${table}" where "${table}"."reservation_id" = "reservation"."id"`;
  return `${COLUMNS.split(', ')
    .map((column) => `"reservation".${column}`)
    .join(', ')},
    (select ${aggregate('"product_id", "location_id", "quantity"', '"product_id", "location_id"')} ${of('reservation_allocation')}) as "allocations",
    (select ${aggregate('"product_id", "quantity"', '"product_id"')} ${of('reservation_backorder')}) as "backorders"`;
}

const TRANSITION = `update "reservation" set "status" = ?, "updated_at" = ? where "id" = ? and "status" = ?`;

/** The reads of a reservation with its holds, per dialect, each text built once: a transaction only picks its own. */
function reads(dialect: SqlSession['dialect']) {
  const select = `select ${withHolds(dialect)} from "reservation"`;
  const lock = dialect === 'postgresql' ? ' for update of "reservation"' : '';
  return {
    select,
    byId: `${select} where "reservation"."id" = ?`,
    byReference: `${select} where "reservation"."origin" = 'api' and "reservation"."owner" = ? and "reservation"."reference" = ?`,
    forOrder: `${select} where "reservation"."origin" = 'order' and "reservation"."reference" = ?`,
    lockForOrder: `${select} where "reservation"."origin" = 'order' and "reservation"."reference" = ?${lock}`,
    /** PostgreSQL: the update in a CTE, read back with its holds. */
    transitioned: `with "reservation" as (${TRANSITION} returning ${COLUMNS}) ${select}`,
    expired: `${select} where "reservation"."status" = 'held' and "reservation"."expires_at" <= ? order by "reservation"."expires_at" limit ?${dialect === 'postgresql' ? ' for update of "reservation" skip locked' : ''}`,
  };
}

const READS = { postgresql: reads('postgresql'), sqlite: reads('sqlite') };

/**
 * A reference is unique among one owner's API holds, and among the orders'
 * holds: each claim names the partial unique index of its own kind, so a
 * caller's reference never meets another caller's, nor an order's.
 */
const CONFLICT_TARGET = {
  api: `("owner", "reference") where "origin" = 'api'`,
  order: `("reference") where "origin" = 'order'`,
} as const;

/**
 * Reservations in SQL on the session handed over. The lines keep
 * what was asked (JSON); what each holds, its allocations by location and its
 * backordered units, lives in reservation_allocation and reservation_backorder,
 * and every read assembles the lines from them in the same query.
 */
export class SqlReservationRepository implements ReservationRepository {
  private readonly sql: ReturnType<typeof reads>;

  constructor(private readonly session: SqlSession) {
    this.sql = READS[session.dialect];
  }

  async claim(reservation: Reservation): Promise<'claimed' | 'taken'> {
    // On PostgreSQL a second transaction claiming the same reference (of the same owner) waits here for the first to
    // end.
    const rows = await this.session.all(
      `insert into "reservation" (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ${CONFLICT_TARGET[reservation.origin]} do nothing returning "id"`,
      [
        reservation.id,
        reservation.reference,
        reservation.origin,
        reservation.owner ?? null,
        reservation.status,
        JSON.stringify(reservation.lines.map(asked)),
        this.time(reservation.expiresAt),
        this.time(reservation.createdAt),
        this.time(reservation.updatedAt),
      ],
    );
    return rows.length > 0 ? 'claimed' : 'taken';
  }

  async findById(id: string): Promise<Reservation | undefined> {
    const [row] = await this.session.all(this.sql.byId, [id]);
    return row && toReservation(row);
  }

  async findByReference(owner: string, reference: string): Promise<Reservation | undefined> {
    const [row] = await this.session.all(this.sql.byReference, [owner, reference]);
    return row && toReservation(row);
  }

  async findForOrder(orderId: string): Promise<Reservation | undefined> {
    const [row] = await this.session.all(this.sql.forOrder, [orderId]);
    return row && toReservation(row);
  }

  /** On PostgreSQL the row is locked (for update); SQLite's transactions take turns, so it is this one's already. */
  async lockForOrder(orderId: string): Promise<Reservation | undefined> {
    const [row] = await this.session.all(this.sql.lockForOrder, [orderId]);
    return row && toReservation(row);
  }

  /** On PostgreSQL one statement (the update in a CTE, read back with its holds); on SQLite the read follows. */
  async transition(
    id: string,
    status: Exclude<ReservationStatus, 'held'>,
    at: Date,
    from: 'held' | 'committed' = 'held',
  ): Promise<Reservation | undefined> {
    const params = [status, this.time(at), id, from];
    if (this.session.dialect === 'postgresql') {
      const [row] = await this.session.all(this.sql.transitioned, params);
      return row && toReservation(row);
    }
    return (await this.session.run(TRANSITION, params)) > 0 ? this.findById(id) : undefined;
  }

  async claimExpired(now: Date, limit: number): Promise<Reservation[]> {
    const rows = await this.session.all(this.sql.expired, [this.time(now), limit]);
    return rows.map(toReservation);
  }

  async recordHold(reservationId: string, productId: number, hold: LineHold): Promise<void> {
    const allocations = JSON.stringify(hold.allocations);
    if (this.session.dialect === 'postgresql') {
      await this.session.run(
        `with "allocated" as (${ALLOCATE} select ?::varchar, ?::integer, "locationId", "quantity" from jsonb_to_recordset(?::jsonb) as "allocation"("locationId" integer, "quantity" integer) ${ADD_ALLOCATION})
          ${BACKORDER} select ?::varchar, ?::integer, ?::integer, ?::integer, nextval('reservation_backorder_seq') where ?::integer > 0 ${ADD_BACKORDER}`,
        [
          ...[reservationId, productId, allocations, reservationId, productId],
          ...[hold.backordered, hold.locationId ?? null, hold.backordered],
        ],
      );
      return;
    }
    if (hold.allocations.length > 0)
      await this.session.run(
        `${ALLOCATE} select ?, ?, json_extract("value", '$.locationId'), json_extract("value", '$.quantity') from json_each(?) where true ${ADD_ALLOCATION}`,
        [reservationId, productId, allocations],
      );
    // SQLite's writers take turns: the next number after the largest is later than every backorder there is.
    if (hold.backordered > 0)
      await this.session.run(
        `${BACKORDER} select ?, ?, ?, ?, coalesce(max("seq"), 0) + 1 from "reservation_backorder" where true ${ADD_BACKORDER}`,
        [reservationId, productId, hold.backordered, hold.locationId ?? null],
      );
  }

  async holdOf(reservationId: string, productId: number): Promise<LineHold> {
    const rows = await this.session.all(
      `select "location_id", "quantity" from "reservation_allocation" where "reservation_id" = ? and "product_id" = ?
        union all
        select null, "quantity" from "reservation_backorder" where "reservation_id" = ? and "product_id" = ?`,
      [reservationId, productId, reservationId, productId],
    );
    const allocations = rows
      .filter((row) => row.location_id != null)
      .map((row) => ({ locationId: Number(row.location_id), quantity: Number(row.quantity) }))
      .sort(byLocation);
    const backordered = rows.find((row) => row.location_id == null);
    return { allocations, backordered: backordered ? Number(backordered.quantity) : 0 };
  }

  async backorders(productId: number): Promise<Backorder[]> {
    const rows = await this.session.all(
      `select "reservation_backorder"."reservation_id", "reservation_backorder"."quantity", "reservation_backorder"."location_id" from "reservation_backorder"
        join "reservation" on "reservation"."id" = "reservation_backorder"."reservation_id"
        where "reservation_backorder"."product_id" = ? and "reservation_backorder"."quantity" > 0 and "reservation"."status" = 'held'
        order by "reservation_backorder"."seq"`,
      [productId],
    );
    return rows.map((row) => ({
      reservationId: String(row.reservation_id),
      quantity: Number(row.quantity),
      ...(row.location_id != null && { locationId: Number(row.location_id) }),
    }));
  }

  /** The backorder gives up the fill's units (a line filled in full keeps its row at 0), the allocation takes them. */
  async recordFill(productId: number, fill: Fill): Promise<void> {
    const take = `update "reservation_backorder" set "quantity" = "quantity" - ? where "reservation_id" = ? and "product_id" = ? and "quantity" >= ?`;
    const params = [fill.quantity, fill.reservationId, productId, fill.quantity];
    const allocation = [fill.reservationId, productId, fill.locationId, fill.quantity];
    if (this.session.dialect === 'postgresql') {
      const [done] = await this.session.all(
        `with "taken" as (${take} returning 1) ${ALLOCATE} select ?::varchar, ?::integer, ?::integer, ?::integer where exists (select 1 from "taken") ${ADD_ALLOCATION} returning 1 as "filled"`,
        [...params, ...allocation],
      );
      if (!done) throw overfilled(productId, fill);
      return;
    }
    if ((await this.session.run(take, params)) === 0) throw overfilled(productId, fill);
    await this.session.run(`${ALLOCATE} values (?, ?, ?, ?) ${ADD_ALLOCATION}`, allocation);
  }

  async dropBackorder(reservationId: string, productId: number): Promise<void> {
    await this.session.run(`delete from "reservation_backorder" where "reservation_id" = ? and "product_id" = ?`, [
      reservationId,
      productId,
    ]);
  }

  /** timestamptz on PostgreSQL (sent as ISO text), epoch milliseconds on SQLite. */
  private time(date: Date): string | number {
    return this.session.dialect === 'postgresql' ? date.toISOString() : date.getTime();
  }
}

const ALLOCATE = `insert into "reservation_allocation" ("reservation_id", "product_id", "location_id", "quantity")`;
/** Units allocated again at a location (a fill there) add to what the line holds there. */
const ADD_ALLOCATION = `on conflict ("reservation_id", "product_id", "location_id") do update set "quantity" = "reservation_allocation"."quantity" + excluded."quantity"`;
const BACKORDER = `insert into "reservation_backorder" ("reservation_id", "product_id", "quantity", "location_id", "seq")`;
const ADD_BACKORDER = `on conflict ("reservation_id", "product_id") do update set "quantity" = "reservation_backorder"."quantity" + excluded."quantity"`;

function overfilled(productId: number, fill: Fill): Error {
  return new Error(
    `Reservation ${fill.reservationId} waits for fewer than ${fill.quantity} backordered units of product ${productId}: a fill must come from its backorders as the lock read them.`,
  );
}

/** What a line asked for: the JSON column keeps that, and the tables what it holds. */
function asked({ productId, quantity, locationId }: ReservationLine): ReservationLine {
  return { productId, quantity, ...(locationId !== undefined && { locationId }) };
}

const byLocation = (a: Allocation, b: Allocation) => a.locationId - b.locationId;

/**
 * A reservation with its lines as held: every reservation but a rejected one
 * held its lines, so each is a HeldLine with its allocations (by location)
 * and its backordered units.
 */
function toReservation(row: Row): Reservation {
  const status = row.status as ReservationStatus;
  const lines = JSON.parse(String(row.lines)) as ReservationLine[];
  const allocations = JSON.parse(String(row.allocations)) as [number, number, number][];
  const backorders = new Map(JSON.parse(String(row.backorders)) as [number, number][]);
  const held = (line: ReservationLine): HeldLine => ({
    ...line,
    allocations: allocations
      .filter(([productId]) => productId === line.productId)
      .map(([, locationId, quantity]) => ({ locationId, quantity }))
      .sort(byLocation),
    backorderedQuantity: backorders.get(line.productId) ?? 0,
  });
  return {
    id: String(row.id),
    reference: String(row.reference),
    origin: row.origin as ReservationOrigin,
    ...(row.owner != null && { owner: row.owner as string }),
    status,
    lines: status === 'rejected' ? lines : lines.map(held),
    expiresAt: timeOf(row.expires_at),
    createdAt: timeOf(row.created_at),
    updatedAt: timeOf(row.updated_at),
  };
}
