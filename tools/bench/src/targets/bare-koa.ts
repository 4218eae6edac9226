import { koaApp, listenKoa } from './koa-server';
import { mapHandlers } from './map-store';

/** Koa + @koa/router + koa-bodyparser over a Map: the framework's own ceiling for the in-memory service. */
listenKoa(koaApp(mapHandlers()));
