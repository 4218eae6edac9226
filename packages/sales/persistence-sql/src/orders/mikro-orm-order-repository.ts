import { type Row, type SqlSession, timeOf } from '@platform/persistence';
import { orderFromSnapshot, orderSnapshot } from '@sales/domain';
import type { Order, OrderPageQuery, OrderRepository, OrderStatus, PaymentStatus, Viewer } from '@sales/domain';

/** An order as its row's JSON columns hold it. */
type Snapshot = Parameters<typeof orderFromSnapshot>[0];

const COLUMNS =
  '"id", "buyer", "status", "lines", "total_cents", "reservation_id", "reservation_expires_at", "shortages", "failure_reason", "payment_to_release", "payment", "payment_status", "refunds", "payment_due_at", "created_at", "updated_at", "version"';

/** Orders through MikroORM, one statement per call on the session handed over. */
export class MikroOrmOrderRepository implements OrderRepository {
  constructor(private readonly session: SqlSession) {}

  async add(order: Order): Promise<void> {
    await this.session.run(
      `insert into "sales_order" (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      this.values(order),
    );
  }

  /** `lock`: `for update` on PostgreSQL; SQLite's transactions hold the one connection, so they take turns already. */
  async findById(id: string, { lock = false }: { readonly lock?: boolean } = {}): Promise<Order | undefined> {
    const forUpdate = lock && this.session.dialect === 'postgresql' ? ' for update' : '';
    const [row] = await this.session.all(`select ${COLUMNS} from "sales_order" where "id" = ?${forUpdate}`, [id]);
    return row && this.toOrder(row);
  }

  async list(viewer: Viewer, { after, limit }: OrderPageQuery): Promise<Order[]> {
    const conditions = [
      ...(viewer.kind === 'buyer' ? ['"buyer" = ?'] : []),
      ...(after !== undefined ? ['"id" > ?'] : []),
    ];
    const params = [...(viewer.kind === 'buyer' ? [viewer.buyer] : []), ...(after !== undefined ? [after] : []), limit];
    const rows = await this.session.all(
      `select ${COLUMNS} from "sales_order"${conditions.length ? ` where ${conditions.join(' and ')}` : ''} order by "id" limit ?`,
      params,
    );
    return rows.map((row) => this.toOrder(row));
  }

  async findPendingPlacedBy(placedBy: Date, limit: number): Promise<string[]> {
    const rows = await this.session.all<{ id: string }>(
      'select "id" from "sales_order" where "status" = ? and "created_at" <= ? order by "id" limit ?',
      ['pending', this.time(placedBy), limit],
    );
    return rows.map((row) => row.id);
  }

  async countByStatus(): Promise<Partial<Record<OrderStatus, number>>> {
    const rows = await this.session.all<{ status: OrderStatus; n: number | string }>(
      'select "status", count(*) as "n" from "sales_order" group by "status"',
    );
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
  }

  async countByPaymentStatus(): Promise<Partial<Record<PaymentStatus, number>>> {
    const rows = await this.session.all<{ payment_status: PaymentStatus; n: number | string }>(
      'select "payment_status", count(*) as "n" from "sales_order" where "payment_status" is not null group by "payment_status"',
    );
    return Object.fromEntries(rows.map((row) => [row.payment_status, Number(row.n)]));
  }

  /** One statement: instances claiming at once skip each other's rows (PostgreSQL) or take turns (SQLite). */
  async claimPaymentWork(now: Date, leaseMs: number, limit: number): Promise<string[]> {
    const skipLocked = this.session.dialect === 'postgresql' ? ' for update skip locked' : '';
    const rows = await this.session.all<{ id: string }>(
      `update "sales_order" set "payment_due_at" = ? where "id" in (
         select "id" from "sales_order" where "payment_due_at" <= ? order by "payment_due_at" limit ?${skipLocked}
       ) returning "id"`,
      [this.time(new Date(now.getTime() + leaseMs)), this.time(now), limit],
    );
    return rows.map((row) => row.id);
  }

  async deferPaymentWork(id: string, until: Date): Promise<void> {
    await this.session.run(
      'update "sales_order" set "payment_due_at" = ? where "id" = ? and "payment_due_at" is not null',
      [this.time(until), id],
    );
  }

  /** One conditional update: the row changes only if it is still at `expectedVersion`. */
  async save(order: Order, expectedVersion: number): Promise<boolean> {
    const [
      id,
      buyer,
      status,
      lines,
      total,
      reservationId,
      expiresAt,
      shortages,
      failureReason,
      paymentToRelease,
      payment,
      paymentStatus,
      refunds,
      paymentDueAt,
      ,
      updatedAt,
      version,
    ] = this.values(order);
    const changed = await this.session.run(
      `update "sales_order" set "buyer" = ?, "status" = ?, "lines" = ?, "total_cents" = ?, "reservation_id" = ?, "reservation_expires_at" = ?, "shortages" = ?, "failure_reason" = ?, "payment_to_release" = ?, "payment" = ?, "payment_status" = ?, "refunds" = ?, "payment_due_at" = ?, "updated_at" = ?, "version" = ?
       where "id" = ? and "version" = ?`,
      [
        buyer,
        status,
        lines,
        total,
        reservationId,
        expiresAt,
        shortages,
        failureReason,
        paymentToRelease,
        payment,
        paymentStatus,
        refunds,
        paymentDueAt,
        updatedAt,
        version,
        id,
        expectedVersion,
      ],
    );
    return changed > 0;
  }

  private values(order: Order): unknown[] {
    const snapshot = orderSnapshot(order);
    return [
      order.id,
      order.buyer,
      order.status,
      JSON.stringify(snapshot.lines),
      order.total.cents,
      order.reservationId ?? null,
      order.reservationExpiresAt ? this.time(order.reservationExpiresAt) : null,
      order.shortages ? JSON.stringify(order.shortages) : null,
      order.failureReason ?? null,
      this.flag(order.paymentToRelease === true),
      snapshot.payment ? JSON.stringify(snapshot.payment) : null,
      order.payment?.status ?? null,
      JSON.stringify(snapshot.refunds ?? []),
      // Due at once while the order owes the provider a call (the payment worker's claim leases it).
      order.paymentWork() ? this.time(order.updatedAt) : null,
      this.time(order.createdAt),
      this.time(order.updatedAt),
      order.version,
    ];
  }

  /** boolean on PostgreSQL, 0 or 1 on SQLite (whose driver binds no booleans). */
  private flag(value: boolean): boolean | number {
    return this.session.dialect === 'postgresql' ? value : Number(value);
  }

  /** timestamptz on PostgreSQL (sent as ISO text), epoch milliseconds on SQLite. */
  private time(date: Date): string | number {
    return this.session.dialect === 'postgresql' ? date.toISOString() : date.getTime();
  }

  private toOrder(row: Row): Order {
    return orderFromSnapshot({
      id: String(row.id),
      buyer: String(row.buyer),
      status: row.status as OrderStatus,
      lines: JSON.parse(row.lines as string) as Snapshot['lines'],
      ...(row.reservation_id != null && { reservationId: row.reservation_id as string }),
      ...(row.reservation_expires_at != null && {
        reservationExpiresAt: timeOf(row.reservation_expires_at).toISOString(),
      }),
      ...(row.shortages != null && { shortages: JSON.parse(row.shortages as string) as Snapshot['shortages'] }),
      ...(row.failure_reason != null && { failureReason: row.failure_reason as string }),
      ...(Boolean(row.payment_to_release) && { paymentToRelease: true }),
      ...(row.payment != null && { payment: JSON.parse(row.payment as string) as Snapshot['payment'] }),
      ...(row.refunds != null && { refunds: JSON.parse(row.refunds as string) as Snapshot['refunds'] }),
      createdAt: timeOf(row.created_at).toISOString(),
      updatedAt: timeOf(row.updated_at).toISOString(),
      version: Number(row.version),
    });
  }
}
