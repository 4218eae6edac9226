import { Invalid, ValidationError } from '@platform/kernel';
import { decodeBody, field, isNumber, isString, optional, required } from '@platform/http';
import * as t from 'io-ts';
import type { ReplayFrom } from '@stock/domain';
import type { NewSubscription } from '@stock/application';

const MAX_EVENTS = 50;
const EVENT_TYPE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
const MAX_SEQUENCE = Number.MAX_SAFE_INTEGER;

function parseUrl(value: string): string | Invalid {
  if (value.length > 2048) return new Invalid('must be at most 2048 characters');
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? value : new Invalid('must be an http or https URL');
  } catch {
    return new Invalid('must be an absolute URL');
  }
}

function parseEvents(value: unknown[]): string[] | Invalid {
  if (value.length === 0 || value.length > MAX_EVENTS) return new Invalid(`must list 1 to ${MAX_EVENTS} event types`);
  if (!value.every((type): type is string => typeof type === 'string' && (type === '*' || EVENT_TYPE.test(type))))
    return new Invalid('must list event types (such as "stock.reservation.confirmed"), or be ["*"]');
  return value;
}

const parseDescription = (value: string) =>
  value.length <= 500 ? value : new Invalid('must be at most 500 characters');

const SubscriptionBody = t.type({
  url: required(field('Url', isString, 'a string', parseUrl)),
  events: required(field('Events', (u: unknown): u is unknown[] => Array.isArray(u), 'an array', parseEvents)),
  description: optional(field('Description', isString, 'a string', parseDescription), undefined),
});

/** `{ url, events, description? }`, unknown properties refused. */
export function decodeSubscriptionBody(body: Record<string, unknown>): NewSubscription {
  const { url, events, description } = decodeBody(SubscriptionBody, body, 'a webhook subscription');
  return { url, events, ...(description !== undefined && { description }) };
}

const parseSequence = (value: number) =>
  Number.isSafeInteger(value) && value >= 0 && value <= MAX_SEQUENCE ? value : new Invalid('must be an integer from 0');
const parseProductId = (value: number | string) =>
  (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) ||
  (typeof value === 'string' && /^[\w.:-]{1,64}$/.test(value))
    ? value
    : new Invalid('must be a product id');
const parseTime = (value: string) => {
  const time = Date.parse(value);
  return /^\d{4}-\d\d-\d\dT/.test(value) && !Number.isNaN(time) ? time : new Invalid('must be an RFC 3339 time');
};

const ReplayBody = t.type({
  productId: optional(
    field(
      'ProductId',
      (u: unknown): u is number | string => isNumber(u) || isString(u),
      'a product id',
      parseProductId,
    ),
    undefined,
  ),
  sinceSequence: optional(field('SinceSequence', isNumber, 'an integer', parseSequence), undefined),
  since: optional(field('Since', isString, 'a string', parseTime), undefined),
});

/** `{ productId, sinceSequence }` or `{ since }`, and not both. */
export function decodeReplayBody(body: Record<string, unknown>): ReplayFrom {
  const { productId, sinceSequence, since } = decodeBody(ReplayBody, body, 'a replay request');
  if (since !== undefined && productId === undefined && sinceSequence === undefined) return { since };
  if (since === undefined && productId !== undefined && sinceSequence !== undefined)
    return { productId, sinceSequence };
  throw new ValidationError({ '': ['must give either productId and sinceSequence, or since'] });
}
