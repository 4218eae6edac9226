import * as t from 'io-ts';

/** The textual form of a UUID, any version; the AsyncAPI schemas use the same pattern. */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** RFC 3339 (the profile of ISO 8601 that JSON Schema's date-time means): a T, seconds, an offset; no leap second. */
export const DATE_TIME_PATTERN =
  '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d{1,9})?(Z|[+-]([01]\\d|2[0-3]):[0-5]\\d)$';

const uuid = new RegExp(UUID_PATTERN);
const dateTime = new RegExp(DATE_TIME_PATTERN);

export const Uuid = new t.Type<string, string, unknown>(
  'Uuid',
  (u): u is string => typeof u === 'string' && uuid.test(u),
  (u, c) => (typeof u === 'string' && uuid.test(u) ? t.success(u) : t.failure(u, c, 'must be a UUID')),
  t.identity,
);

/** A real instant: "2026-02-30T…" matches the pattern but is no day, so the calendar is checked too. */
function isDateTime(u: unknown): u is string {
  if (typeof u !== 'string' || !dateTime.test(u)) return false;
  const [year, month, day] = u.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCDate() === day;
}

export const DateTime = new t.Type<string, string, unknown>(
  'DateTime',
  isDateTime,
  (u, c) => (isDateTime(u) ? t.success(u) : t.failure(u, c, 'must be an RFC 3339 date-time with an offset')),
  t.identity,
);

/** An integer from `min` to `max`. */
export function integer(name: string, min: number, max: number): t.Type<number, number, unknown> {
  const is = (u: unknown): u is number => typeof u === 'number' && Number.isInteger(u) && u >= min && u <= max;
  return new t.Type<number, number, unknown>(
    name,
    is,
    (u, c) => (is(u) ? t.success(u) : t.failure(u, c, `must be an integer from ${min} to ${max}`)),
    t.identity,
  );
}

/** A string of `min` to `max` characters. */
export function text(name: string, min: number, max: number): t.Type<string, string, unknown> {
  const is = (u: unknown): u is string => typeof u === 'string' && u.length >= min && u.length <= max;
  return new t.Type<string, string, unknown>(
    name,
    is,
    (u, c) => (is(u) ? t.success(u) : t.failure(u, c, `must be a string of ${min} to ${max} characters`)),
    t.identity,
  );
}

/** An array of `min` to `max` items, each decoded by `item`. */
export function list<C extends t.Mixed>(
  item: C,
  min: number,
  max: number,
): t.Type<t.TypeOf<C>[], t.OutputOf<C>[], unknown> {
  const array = t.array(item);
  return new t.Type<t.TypeOf<C>[], t.OutputOf<C>[], unknown>(
    `${item.name}[${min}..${max}]`,
    (u): u is t.TypeOf<C>[] => array.is(u) && u.length >= min && u.length <= max,
    (u, c) =>
      Array.isArray(u) && (u.length < min || u.length > max)
        ? t.failure(u, c, `must have ${min} to ${max} items`)
        : array.validate(u, c),
    array.encode,
  );
}

/**
 * An object with exactly these properties: io-ts's `exact` strips unknown
 * properties silently, and a producer that sends a field its consumers do not
 * know has changed the contract without a new version.
 */
export function exactObject<P extends t.Props>(
  name: string,
  props: P,
): t.Type<t.TypeOf<t.TypeC<P>>, t.OutputOf<t.TypeC<P>>, unknown> {
  const shape = t.type(props, name);
  const known = new Set(Object.keys(props));
  return new t.Type<t.TypeOf<t.TypeC<P>>, t.OutputOf<t.TypeC<P>>, unknown>(
    name,
    (u): u is t.TypeOf<t.TypeC<P>> => shape.is(u) && Object.keys(u).every((key) => known.has(key)),
    (u, c) => {
      if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, c, 'must be an object');
      const unknown = Object.keys(u).filter((key) => !known.has(key));
      if (unknown.length > 0) return t.failure(u, c, `has unknown properties: ${unknown.join(', ')}`);
      return shape.validate(u, c);
    },
    shape.encode,
  );
}
