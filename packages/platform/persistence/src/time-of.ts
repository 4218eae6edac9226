/**
 * A time read back from either database: MikroORM has pg hand timestamptz over
 * as text ("2026-11-23 10:00:01.5+00", so no precision is lost), SQLite keeps
 * epoch milliseconds.
 */
export function timeOf(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value))) return new Date(Number(value));
  if (typeof value === 'string') return new Date(value.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
  throw new TypeError(`Not a time: ${JSON.stringify(value)}`);
}
