import { koaApp, listenKoa } from './koa-server';
import { pgPool, pgQueries } from './pg-queries';

/** Koa + @koa/router + pg, the service's statements prepared: the framework's own ceiling on PostgreSQL. */
listenKoa(koaApp(pgQueries(pgPool())));
