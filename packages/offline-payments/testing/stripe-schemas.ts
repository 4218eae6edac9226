import { Ajv, type ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';

/** The schemas the provider's answers are checked against, by Stripe's names. */
export type StripeSchemaName = 'payment_intent' | 'refund' | 'webhook_endpoint' | 'error' | 'event';

interface Subset {
  readonly stubbedSchemas: readonly string[];
  readonly components: { readonly schemas: Record<string, unknown> };
}

/**
 * OpenAPI 3.0's `nullable` as JSON Schema says it (a `null` type or branch beside the others), which Ajv checks:
 * Ajv refuses `nullable` beside an `anyOf`, and Stripe writes it there for every expandable field.
 */
function asJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(asJsonSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const { nullable, ...rest } = schema as Record<string, unknown>;
  const node = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, asJsonSchema(value)]));
  if (nullable !== true) return node;
  if (Array.isArray(node.anyOf)) return { ...node, anyOf: [...(node.anyOf as unknown[]), { type: 'null' }] };
  if (Array.isArray(node.enum)) node.enum = [...(node.enum as unknown[]), null];
  return { ...node, type: [node.type, 'null'] };
}

let validators: Map<StripeSchemaName, ValidateFunction> | undefined;

function compile(): Map<StripeSchemaName, ValidateFunction> {
  const subset = JSON.parse(readFileSync(new URL('./stripe-openapi-subset.json', import.meta.url), 'utf8')) as Subset;
  const ajv = new Ajv({ allErrors: true, strict: true });
  // Stripe's own formats: seconds since the epoch, and a lower-case ISO 4217 code.
  ajv.addFormat('unix-time', { type: 'number', validate: (value: number) => Number.isInteger(value) && value >= 0 });
  ajv.addFormat('currency', /^[a-z]{3}$/);
  const schemas = { ...subset.components.schemas };
  for (const name of subset.stubbedSchemas) schemas[name] = {};
  for (const [name, schema] of Object.entries(schemas))
    ajv.addSchema(asJsonSchema(schema) as object, `#/components/schemas/${name}`);
  const names: StripeSchemaName[] = ['payment_intent', 'refund', 'webhook_endpoint', 'error', 'event'];
  return new Map(names.map((name) => [name, ajv.getSchema(`#/components/schemas/${name}`)!]));
}

/** Throws, naming every mismatch, unless `value` is what Stripe's description says a `name` is. */
export function assertStripeObject(name: StripeSchemaName, value: unknown): void {
  const validate = (validators ??= compile()).get(name)!;
  if (!validate(value))
    throw new Error(
      `not a Stripe ${name}: ${validate.errors!.map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')}`,
    );
}

/** The schema an answer's body must match: Stripe's error for a status of 400 or above, else `object`'s. */
export function schemaOfAnswer(status: number, body: unknown): StripeSchemaName {
  if (status >= 400) return 'error';
  const object = (body as { object?: unknown }).object;
  if (object === 'payment_intent' || object === 'refund' || object === 'webhook_endpoint' || object === 'event')
    return object;
  throw new Error(`an answer of an object this provider should not send: ${JSON.stringify(object)}`);
}
