import { isLeft } from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { DateTime, exactObject, text, Uuid } from './codecs';
import { EVENTS, eventTypesConsumedBy, type IntegrationEvent, isEventType } from './events';

/** Why a message is not an event this code knows. */
export type DecodeFailureReason = 'malformed-json' | 'not-an-envelope' | 'unknown-type' | 'invalid-data';

export interface DecodeFailure {
  readonly reason: DecodeFailureReason;
  /** Every problem found, each naming where it is (`data.lines.0.quantity: must be …`). */
  readonly message: string;
  /** The envelope's id and type, when they could be read: for the log line. */
  readonly id?: string;
  readonly type?: string;
}

export type DecodeResult =
  { readonly ok: true; readonly event: IntegrationEvent } | { readonly ok: false; readonly failure: DecodeFailure };

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

/** Any JSON object: the data's own codec, chosen by the type, checks it next. */
const Data = new t.Type<Record<string, unknown>, Record<string, unknown>, unknown>(
  'Data',
  isObject,
  (u, c) => (isObject(u) ? t.success(u) : t.failure(u, c, 'must be an object')),
  t.identity,
);

const Envelope = exactObject('EventEnvelope', {
  id: Uuid,
  type: text('EventType', 1, 255),
  occurredAt: DateTime,
  data: Data,
});

function describe(errors: t.Errors, prefix: string): string {
  return errors
    .map((error) => {
      const path = error.context.map((entry) => entry.key).filter((key) => key !== '');
      return `${[prefix, ...path].filter(Boolean).join('.') || '(message)'}: ${error.message ?? 'is invalid'}`;
    })
    .join('; ');
}

/**
 * A message body (a JSON text, its bytes, or the value already parsed) as a
 * typed event, or a failure that says why. Never throws: a consumer dead-letters
 * what does not decode instead of retrying it.
 */
export function decodeEvent(body: unknown): DecodeResult {
  let value = body;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    try {
      value = JSON.parse(String(body)) as unknown;
    } catch (error) {
      return { ok: false, failure: { reason: 'malformed-json', message: (error as Error).message } };
    }
  }
  const { id, type } = isObject(value) ? value : {};
  const known = { ...(typeof id === 'string' ? { id } : {}), ...(typeof type === 'string' ? { type } : {}) };
  const envelope = Envelope.decode(value);
  if (isLeft(envelope))
    return { ok: false, failure: { reason: 'not-an-envelope', message: describe(envelope.left, ''), ...known } };
  if (!isEventType(envelope.right.type))
    return {
      ok: false,
      failure: { reason: 'unknown-type', message: `no contract for the event type "${envelope.right.type}"`, ...known },
    };
  const data = EVENTS[envelope.right.type].data.decode(envelope.right.data);
  if (isLeft(data))
    return { ok: false, failure: { reason: 'invalid-data', message: describe(data.left, 'data'), ...known } };
  return { ok: true, event: { ...envelope.right, data: data.right } as IntegrationEvent };
}

/**
 * The decoder of one consumer: an event of a type its queue is not bound to
 * (misrouted, or bound by hand) is refused like an unknown one, so it is
 * dead-lettered instead of handled by code that does not expect it.
 */
export function decodeEventFor(service: string): (body: unknown) => DecodeResult {
  const consumed = new Set<string>(eventTypesConsumedBy(service));
  return (body) => {
    const result = decodeEvent(body);
    if (!result.ok || consumed.has(result.event.type)) return result;
    return {
      ok: false,
      failure: {
        reason: 'unknown-type',
        message: `${service} does not consume ${result.event.type}`,
        id: result.event.id,
        type: result.event.type,
      },
    };
  };
}
