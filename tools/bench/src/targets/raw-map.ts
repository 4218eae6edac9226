import { mapHandlers } from './map-store';
import { listen, rawServer } from './raw-http';

/** node:http + a Map: the limit for the in-memory adapter. */
listen(rawServer(mapHandlers()));
