import { pgPool, pgQueries } from './pg-queries';
import { listen, rawServer } from './raw-http';

/** node:http + pg without prepared statements: what the service's statements cost the server, without our layers. */
listen(rawServer(pgQueries(pgPool(), false)));
