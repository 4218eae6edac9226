import { listen, rawServer } from './raw-http';
import { openSqlite, sqliteQueries } from './sqlite-queries';

/** node:http + better-sqlite3 with cached statements: the service's statements on its own SQLite schema. */
listen(rawServer(sqliteQueries(openSqlite(process.env.DATABASE_URL!))));
