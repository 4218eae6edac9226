export type Dialect = 'postgresql' | 'sqlite';

export interface DatabaseLocation {
  readonly dialect: Dialect;
  /** A file path (or ":memory:") for SQLite, a client URL for PostgreSQL. */
  readonly target: string;
}

/** `sqlite:<file>` or `postgres://…` / `postgresql://…`; anything else is a configuration error. */
export function parseDatabaseUrl(url: string): DatabaseLocation {
  if (/^postgres(ql)?:\/\//i.test(url)) return { dialect: 'postgresql', target: url };
  const sqlite = /^sqlite:(?:\/\/)?(.+)$/i.exec(url);
  if (sqlite?.[1]) return { dialect: 'sqlite', target: sqlite[1] };
  throw new Error(`Unsupported DATABASE_URL "${url}": expected sqlite:<file> or postgres://…`);
}
