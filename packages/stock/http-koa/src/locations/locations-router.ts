import { Scopes } from '@commerce/contracts';
import Router, { type RouterContext } from '@koa/router';
import { type AccessControl, decodeInteger, jsonObjectBody, logWith, queryParameters } from '@platform/http';
import type { Locations } from '@stock/application';
import { LocationNotFoundError } from '@stock/domain';
import type { Context } from 'koa';
import { decodeLocationBody } from './location-codec';
import { locationJson } from './location-json';

export interface LocationUseCases {
  readonly locations: Locations;
}

const BODY_LIMIT = '64kb';

type Handler = (ctx: Context) => Promise<void>;

function locationId(ctx: Context): number {
  return decodeInteger('id', (ctx.params as RouterContext['params']).id, 1);
}

/** GET /: every location, lower priority first, then lower id. */
function listLocationsHandler({ locations }: LocationUseCases): Handler {
  return async function listLocations(ctx) {
    ctx.body = (await locations.list()).map(locationJson);
  };
}

/** GET /:id: one location (where a creation's Location header points). */
function getLocationHandler({ locations }: LocationUseCases): Handler {
  return async function getLocation(ctx) {
    const id = locationId(ctx);
    const location = (await locations.list()).find((candidate) => candidate.id === id);
    if (!location) throw new LocationNotFoundError(id);
    ctx.body = locationJson(location);
  };
}

/** POST /: a new location; a code already taken is a 409. */
function createLocationHandler({ locations }: LocationUseCases): Handler {
  return async function createLocation(ctx) {
    const location = await locations.create(decodeLocationBody(ctx.request.body as Record<string, unknown>));
    logWith(ctx, { event: 'location created', locationId: location.id, locationCode: location.code });
    ctx.status = 201;
    ctx.set('Location', `/api/locations/${location.id}`);
    ctx.body = locationJson(location);
  };
}

/** DELETE /:id: a location nothing is kept at; never the default one. */
function deleteLocationHandler({ locations }: LocationUseCases): Handler {
  return async function deleteLocation(ctx) {
    await locations.remove(locationId(ctx));
    ctx.status = 204;
  };
}

/**
 * /api/locations: the places stock is kept. Reading them takes stock:read;
 * creating and removing them is keeping the stock, stock:write (ADR 0015).
 */
export function locationsRouter({ useCases, access }: { useCases: LocationUseCases; access: AccessControl }): Router {
  const router = new Router({ prefix: '/api/locations' });
  const read = access.require(Scopes.stock.read);
  const write = access.require(Scopes.stock.write);
  const noQuery = queryParameters();
  router.use(access.authenticate);
  router.get('/', read, noQuery, listLocationsHandler(useCases));
  router.get('/:id', read, noQuery, getLocationHandler(useCases));
  router.post('/', write, noQuery, jsonObjectBody(BODY_LIMIT), createLocationHandler(useCases));
  router.delete('/:id', write, noQuery, deleteLocationHandler(useCases));
  return router;
}
