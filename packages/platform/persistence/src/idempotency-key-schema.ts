import { EntitySchema } from '@mikro-orm/core';
import type { Dialect } from './database-url';

/**
 * A recorded result of work that ran once for a key (see @platform/kernel's runOnce), kept until `expiresAt` (epoch
 * ms).
 */
export interface IdempotencyKeyRow {
  scope: string;
  key: string;
  fingerprint: string;
  result: string | null;
  expiresAt: number;
}

/** The mapping of the table each service's migrations create; the schema-drift test holds the two together. */
export function idempotencyKeySchema(dialect: Dialect): EntitySchema<IdempotencyKeyRow> {
  return new EntitySchema<IdempotencyKeyRow>({
    name: 'IdempotencyKey',
    tableName: 'idempotency_key',
    indexes: [{ name: 'idempotency_key_expires_at_index', properties: ['expiresAt'] }],
    properties: {
      scope: { type: 'string', length: 255, primary: true },
      key: { type: 'string', length: 255, primary: true },
      fingerprint: { type: 'string', length: 255 },
      result: { type: 'text', nullable: true },
      // Epoch milliseconds: bigint on PostgreSQL; SQLite's integer holds 64 bits.
      expiresAt: { type: dialect === 'postgresql' ? 'bigint' : 'integer', fieldName: 'expires_at' },
    },
  });
}
