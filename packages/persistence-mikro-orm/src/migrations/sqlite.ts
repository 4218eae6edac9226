import { Migration } from '@mikro-orm/migrations';

export class CreateProductTable extends Migration {
  override async up(): Promise<void> {
    // AUTOINCREMENT: an id is never handed out twice, even after its product is deleted.
    this.addSql(`create table "product" (
      "id" integer primary key autoincrement,
      "name" text not null check (length("name") <= 200),
      "description" text not null default '' check (length("description") <= 2000),
      "price_cents" integer not null check ("price_cents" >= 0),
      "quantity_in_stock" integer not null default 0 check ("quantity_in_stock" between 0 and 2147483647)
    )`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table "product"');
  }
}

export const sqliteMigrations = [{ name: '20261122-create-product', class: CreateProductTable }];
