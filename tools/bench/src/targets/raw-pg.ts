import { pgPool, pgQueries } from './pg-queries';
import { listen, rawServer } from './raw-http';

/** node:http + pg with prepared statements: the limit for Node on PostgreSQL. */
listen(rawServer(pgQueries(pgPool())));
