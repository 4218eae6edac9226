import { Migration } from '@mikro-orm/migrations';
import type { Dialect } from './database-url';

const DDL: Record<Dialect, string> = {
  postgresql: `create table "outbox_message" (
      "id" uuid not null primary key,
      "type" varchar(255) not null,
      "payload" text not null,
      "occurred_at" bigint not null,
      "published_at" bigint null,
      "attempts" integer not null,
      "next_attempt_at" bigint not null,
      "locked_until" bigint not null
    )`,
  sqlite: `create table "outbox_message" (
      "id" text not null primary key,
      "type" text not null,
      "payload" text not null,
      "occurred_at" integer not null,
      "published_at" integer null,
      "attempts" integer not null,
      "next_attempt_at" integer not null,
      "locked_until" integer not null
    )`,
};

/**
 * The migration that creates the outbox table of `outboxMessageSchema`, for a
 * service to add to its own list under a name of its choosing:
 * `{ name: '20261124-outbox', class: outboxMessageMigration('postgresql') }`.
 */
export function outboxMessageMigration(
  dialect: Dialect,
): new (...args: ConstructorParameters<typeof Migration>) => Migration {
  return class CreateOutboxMessage extends Migration {
    override async up(): Promise<void> {
      this.addSql(DDL[dialect]);
      this.addSql(
        'create index "outbox_message_relay_index" on "outbox_message" ("published_at", "occurred_at", "id")',
      );
    }

    override async down(): Promise<void> {
      this.addSql('drop table "outbox_message"');
    }
  };
}

/** Adds the trace context of the span that wrote each row (ADR 0021): nullable, as rows written before it have none. */
export function outboxTraceContextMigration(
  _dialect: Dialect,
): new (...args: ConstructorParameters<typeof Migration>) => Migration {
  return class AddOutboxTraceContext extends Migration {
    override async up(): Promise<void> {
      this.addSql('alter table "outbox_message" add column "trace_context" text null');
    }

    override async down(): Promise<void> {
      this.addSql('alter table "outbox_message" drop column "trace_context"');
    }
  };
}

/**
 * Every migration of the outbox table, in order, named: a service spreads them into its own list, and gets the ones
 * added later with no change of its own.
 */
export function outboxMigrations(dialect: Dialect) {
  return [
    { name: '20261124-outbox', class: outboxMessageMigration(dialect) },
    { name: '20261125-outbox-trace-context', class: outboxTraceContextMigration(dialect) },
  ];
}
