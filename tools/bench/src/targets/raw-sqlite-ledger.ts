import { openLedgerSqlite, sqliteLedger } from './ledger-queries';
import { listen, rawServer } from './raw-http';

/** node:http + better-sqlite3, a ledgered −1: the least a ledgered change needs there, in the bench's SQLite file. */
listen(rawServer(sqliteLedger(openLedgerSqlite(process.env.DATABASE_URL!))));
