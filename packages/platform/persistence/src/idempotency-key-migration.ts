import { Migration } from '@mikro-orm/migrations';
import type { Dialect } from './database-url';

const EPOCH: Record<Dialect, string> = { postgresql: 'bigint', sqlite: 'integer' };

/**
 * The migration that creates the table of `idempotencyKeySchema` (idempotency
 * records and consumers' inboxes), for a service to add to its own list under
 * a name of its choosing. The stock service made its table before this
 * existed, in its own migrations, to the same shape.
 */
export function idempotencyKeyMigration(
  dialect: Dialect,
): new (...args: ConstructorParameters<typeof Migration>) => Migration {
  return class CreateIdempotencyKey extends Migration {
    override async up(): Promise<void> {
      this.addSql(`create table "idempotency_key" (
        "scope" varchar(255) not null,
        "key" varchar(255) not null,
        "fingerprint" varchar(255) not null,
        "result" text null,
        "expires_at" ${EPOCH[dialect]} not null,
        primary key ("scope", "key")
      )`);
      this.addSql('create index "idempotency_key_expires_at_index" on "idempotency_key" ("expires_at")');
    }

    override async down(): Promise<void> {
      this.addSql('drop table "idempotency_key"');
    }
  };
}
