import { EntitySchema } from '@mikro-orm/core';
import type { Dialect, OutboxMessageRow } from '@platform/persistence';

type Row = Record<string, unknown>;

const epoch = (dialect: Dialect) => (dialect === 'postgresql' ? 'bigint' : 'integer');
const text = (dialect: Dialect, length: number) =>
  dialect === 'postgresql' ? { type: 'string', length } : { type: 'text' };
const uuid = (dialect: Dialect) => (dialect === 'postgresql' ? { type: 'uuid' } : { type: 'text' });

/** An identity column on PostgreSQL, AUTOINCREMENT on SQLite (whose catalog calls it nullable). */
const identity = (dialect: Dialect) => ({
  type: epoch(dialect),
  primary: true,
  autoincrement: true,
  ...(dialect === 'postgresql' ? { generated: 'by default as identity' } : { nullable: true }),
});

/**
 * The service's outbox mapping with the fan-out's column and index (`outboxWebhookFanOutMigration`), so the
 * schema-drift test of a service that migrates both holds them together.
 */
export function withWebhookFanOut(
  schema: EntitySchema<OutboxMessageRow>,
  dialect: Dialect,
): EntitySchema<OutboxMessageRow> {
  const row = schema as unknown as EntitySchema<Row>;
  row.addProperty('webhooksFannedOutAt', epoch(dialect), { fieldName: 'webhooks_fanned_out_at', nullable: true });
  row.addIndex({
    name: 'outbox_message_webhook_fan_out_index',
    properties: ['webhooksFannedOutAt', 'occurredAt', 'id'] as never,
  });
  return schema;
}

/** The mapping of the tables `webhookTablesMigration` creates. */
export function webhookSchemas(dialect: Dialect): EntitySchema[] {
  return [
    new EntitySchema<Row>({
      name: 'WebhookSubscription',
      tableName: 'webhook_subscription',
      properties: {
        id: { ...uuid(dialect), primary: true },
        url: text(dialect, 2048),
        events: { type: 'text' },
        description: text(dialect, 500),
        secret: { type: 'text' },
        previousSecret: { type: 'text', fieldName: 'previous_secret', nullable: true },
        previousSecretUntil: { type: epoch(dialect), fieldName: 'previous_secret_until', nullable: true },
        createdAt: { type: epoch(dialect), fieldName: 'created_at' },
        disabledAt: { type: epoch(dialect), fieldName: 'disabled_at', nullable: true },
      },
    }),
    new EntitySchema<Row>({
      name: 'WebhookEvent',
      tableName: 'webhook_event',
      indexes: [
        { name: 'webhook_event_ordering_key_sequence_index', properties: ['orderingKey', 'sequence'] },
        { name: 'webhook_event_occurred_at_index', properties: ['occurredAt'] },
      ],
      properties: {
        id: { ...text(dialect, 255), primary: true },
        type: text(dialect, 255),
        payload: { type: 'text' },
        occurredAt: { type: epoch(dialect), fieldName: 'occurred_at' },
        orderingKey: { ...text(dialect, 300), fieldName: 'ordering_key' },
        sequence: { type: epoch(dialect), nullable: true },
        traceContext: { type: 'text', fieldName: 'trace_context', nullable: true },
      },
    }),
    new EntitySchema<Row>({
      name: 'WebhookDelivery',
      tableName: 'webhook_delivery',
      indexes: [
        { name: 'webhook_delivery_queue_index', properties: ['subscriptionId', 'orderingKey', 'state', 'id'] },
        { name: 'webhook_delivery_due_index', properties: ['state', 'nextAttemptAt'] },
        // The retention sweep: whether a delivery still names an event.
        { name: 'webhook_delivery_event_index', properties: ['eventId'] },
      ],
      properties: {
        id: identity(dialect),
        subscriptionId: { ...uuid(dialect), fieldName: 'subscription_id' },
        eventId: { ...text(dialect, 255), fieldName: 'event_id' },
        orderingKey: { ...text(dialect, 300), fieldName: 'ordering_key' },
        state: text(dialect, 20),
        attempts: { type: 'integer' },
        nextAttemptAt: { type: epoch(dialect), fieldName: 'next_attempt_at' },
        lockedUntil: { type: epoch(dialect), fieldName: 'locked_until' },
        createdAt: { type: epoch(dialect), fieldName: 'created_at' },
      },
    }),
    new EntitySchema<Row>({
      name: 'WebhookAttempt',
      tableName: 'webhook_attempt',
      indexes: [
        { name: 'webhook_attempt_subscription_index', properties: ['subscriptionId', 'attemptedAt'] },
        // The retention sweep: a forgotten delivery's attempts.
        { name: 'webhook_attempt_delivery_index', properties: ['deliveryId'] },
      ],
      properties: {
        id: identity(dialect),
        deliveryId: { type: epoch(dialect), fieldName: 'delivery_id' },
        subscriptionId: { ...uuid(dialect), fieldName: 'subscription_id' },
        eventId: { ...text(dialect, 255), fieldName: 'event_id' },
        eventType: { ...text(dialect, 255), fieldName: 'event_type' },
        attemptedAt: { type: epoch(dialect), fieldName: 'attempted_at' },
        statusCode: { type: 'integer', fieldName: 'status_code', nullable: true },
        durationMs: { type: 'integer', fieldName: 'duration_ms' },
        error: { ...text(dialect, 500), nullable: true },
      },
    }),
  ] as EntitySchema[];
}
