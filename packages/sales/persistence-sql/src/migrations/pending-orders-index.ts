import { Migration } from '@mikro-orm/migrations';

/**
 * The sweep of orders stock has not answered reads the pending ones, oldest first, every few seconds on every
 * instance: an index on the status, then the id (time-ordered), keeps that read off the rest of the table.
 */
export class PendingOrdersIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index "sales_order_status_id_index" on "sales_order" ("status", "id")');
  }

  override async down(): Promise<void> {
    this.addSql('drop index "sales_order_status_id_index"');
  }
}
