import { expect } from 'chai';
import Koa from 'koa';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { swaggerDocs } from '../src';

const SPEC = 'openapi: 3.1.0\ninfo: { title: Tiny, version: 1.0.0 }\npaths: {}\n';

describe('swaggerDocs', () => {
  let directory: string;
  let server: Server;
  let url: string;
  const errors: unknown[] = [];

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'swagger-docs-'));
    writeFileSync(join(directory, 'openapi.yaml'), SPEC);
    const app = new Koa();
    app.silent = true;
    app.on('error', (error) => errors.push(error));
    app.use(swaggerDocs({ specFile: join(directory, 'openapi.yaml'), title: 'Tiny' }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
    rmSync(directory, { recursive: true, force: true });
  });

  it('serves its assets, and leaves a name that is not one of them to the next middleware, even a name every object has', async () => {
    const html = await (await fetch(`${url}/swagger`)).text();
    const bundle = /src="([^"]+swagger-ui-bundle\.js)"/.exec(html)?.[1];
    expect(bundle, html).to.be.a('string');
    expect((await fetch(`${url}${bundle}`)).status).to.equal(200);
    for (const name of ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'evil.js']) {
      expect((await fetch(`${url}/swagger/assets/5.0.0/${name}`)).status, name).to.equal(404);
    }
    expect(errors).to.deep.equal([]);
  });

  it('answers 405 with Allow: GET, HEAD to any other method on the page and everything under it', async () => {
    for (const [method, path] of [['POST', '/swagger'], ['PUT', '/swagger/'], ['DELETE', '/swagger/openapi.json'], ['PATCH', '/swagger/assets/x/favicon.png'], ['OPTIONS', '/swagger/nothing']]) {
      const response = await fetch(`${url}${path}`, { method });
      expect(response.status, `${method} ${path}`).to.equal(405);
      expect(response.headers.get('allow'), `${method} ${path}`).to.equal('GET, HEAD');
    }
  });

  it('leaves paths that only start like its prefix alone', async () => {
    expect((await fetch(`${url}/swaggerish`, { method: 'POST' })).status).to.equal(404);
  });
});
