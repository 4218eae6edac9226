import Router from '@koa/router';
import { decodeGreetName } from './greet-name';
import { type ForecastSources, forecastWeather } from './weather-forecast';

export function sampleRouter(sources: ForecastSources): Router {
  const router = new Router();

  router.get('/weatherforecast', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = forecastWeather(sources);
  });

  router.get('/api/user/greet/:name', (ctx) => {
    const name = decodeGreetName(ctx.captures?.[0] ?? '');
    // Set before the body: a string body starting with `<` would otherwise be sent as text/html.
    ctx.type = 'application/json';
    ctx.body = { message: `Hello, ${name}!` };
  });

  return router;
}
