import Router from '@koa/router';
import { expect } from 'chai';
import { accessControl, createHttpApp, problemsFor, tokenVerifierFor } from '../src';
import { listen, recordingLogger } from './support';

const OPEN_WARNING = 'access tokens are not checked: AUTH_ISSUER is not set, so every caller may do everything';

describe('accessControl: a service with tokens off or on', () => {
  it('runs open when AUTH_ISSUER is empty, and says so in one warning, however many requests and guards follow', async () => {
    const { lines, logger } = recordingLogger();
    const access = accessControl(
      tokenVerifierFor({ authIssuer: '', authAudience: 'urn:commerce:stock', authDiscoveryUrl: '' }, logger),
      logger,
    );
    expect(access.enabled).to.equal(false);
    const http = createHttpApp({ logger, toProblem: problemsFor<never>({}) });
    const router = new Router({ prefix: '/api' });
    router.use(access.authenticate);
    router.post('/things', access.require('stock:write'), (ctx) => {
      ctx.status = 201;
    });
    http.route(router);
    const server = await listen(http.app);
    try {
      for (let i = 0; i < 3; i++)
        expect((await fetch(`${server.url}/api/things`, { method: 'POST' })).status).to.equal(201);
    } finally {
      await server.close();
    }
    expect(lines.filter((line) => line.level === 'warn')).to.deep.equal([{ level: 'warn', message: OPEN_WARNING }]);
  });

  it('checks tokens and says nothing of it when AUTH_ISSUER is set', async () => {
    const { lines, logger } = recordingLogger();
    const access = accessControl(
      tokenVerifierFor(
        { authIssuer: 'http://127.0.0.1:9', authAudience: 'urn:commerce:stock', authDiscoveryUrl: '' },
        logger,
      ),
      logger,
    );
    expect(access.enabled).to.equal(true);
    const http = createHttpApp({ logger, toProblem: problemsFor<never>({}) });
    const router = new Router({ prefix: '/api' });
    router.use(access.authenticate);
    router.get('/things', access.require('stock:read'), (ctx) => {
      ctx.body = [];
    });
    http.route(router);
    const server = await listen(http.app);
    try {
      const response = await fetch(`${server.url}/api/things`);
      expect(response.status).to.equal(401);
      expect(response.headers.get('www-authenticate')).to.equal('Bearer');
    } finally {
      await server.close();
    }
    expect(lines.filter((line) => line.level === 'warn')).to.deep.equal([]);
  });
});
