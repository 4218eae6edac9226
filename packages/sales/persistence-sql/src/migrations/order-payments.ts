import { Migration } from '@mikro-orm/migrations';
import type { Dialect } from '@platform/persistence';

const TIME: Record<Dialect, string> = { postgresql: 'timestamptz', sqlite: 'integer' };

/**
 * Payments (issue 34): an order keeps its payment and its refunds as JSON, the payment's status apart for the metrics,
 * and when it owes the provider a call. A `reserved` order owes an authorisation (Order.paymentWork): it is due at
 * once, so the worker authorises what was waiting for a payment at the upgrade. Every other order owes nothing: those
 * paid before were paid by the client call this replaces, and no provider holds money for them.
 */
export function orderPayments(dialect: Dialect): new (...args: ConstructorParameters<typeof Migration>) => Migration {
  return class OrderPayments extends Migration {
    override async up(): Promise<void> {
      const text = dialect === 'postgresql' ? 'varchar(32)' : 'text';
      this.addSql('alter table "sales_order" add column "payment" text null');
      this.addSql(`alter table "sales_order" add column "payment_status" ${text} null`);
      this.addSql('alter table "sales_order" add column "refunds" text null');
      this.addSql(`alter table "sales_order" add column "payment_due_at" ${TIME[dialect]} null`);
      this.addSql('create index "sales_order_payment_due_at_index" on "sales_order" ("payment_due_at")');
      this.addSql(`update "sales_order" set "payment_due_at" = "updated_at" where "status" = 'reserved'`);
    }

    override async down(): Promise<void> {
      this.addSql('drop index "sales_order_payment_due_at_index"');
      for (const column of ['payment_due_at', 'refunds', 'payment_status', 'payment'])
        this.addSql(`alter table "sales_order" drop column "${column}"`);
    }
  };
}
