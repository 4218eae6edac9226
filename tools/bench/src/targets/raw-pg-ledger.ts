import pg from 'pg';
import { pgLedger } from './ledger-queries';
import { listen, rawServer } from './raw-http';

/** node:http + pg, a ledgered −1: the least SQL a ledgered change needs, one prepared statement, pooled as raw-pg. */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 10) });
listen(rawServer(await pgLedger(pool)));
