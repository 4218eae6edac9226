import { expect } from 'chai';
import { createHash } from 'node:crypto';
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
    for (const [method, path] of [
      ['POST', '/swagger'],
      ['PUT', '/swagger/'],
      ['DELETE', '/swagger/openapi.json'],
      ['PATCH', '/swagger/assets/x/favicon.png'],
      ['OPTIONS', '/swagger/nothing'],
    ]) {
      const response = await fetch(`${url}${path}`, { method });
      expect(response.status, `${method} ${path}`).to.equal(405);
      expect(response.headers.get('allow'), `${method} ${path}`).to.equal('GET, HEAD');
    }
  });

  it('sends a Content-Security-Policy that allows its own scripts and styles, the inline ones by hash, its own origin to call, and no framing', async () => {
    const response = await fetch(`${url}/swagger`);
    const html = await response.text();
    const policy = new Map(
      response.headers
        .get('content-security-policy')!
        .split('; ')
        .map((directive) => [directive.split(' ')[0], directive.split(' ').slice(1)]),
    );
    const hashOf = (tag: string) =>
      `'sha256-${createHash('sha256')
        .update(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(html)![1]!)
        .digest('base64')}'`;
    expect(policy.get('default-src')).to.deep.equal(["'none'"]);
    expect(policy.get('script-src')).to.deep.equal(["'self'", hashOf('script')]);
    expect(policy.get('style-src')).to.include.members(["'self'", hashOf('style')]);
    expect(policy.get('connect-src')).to.deep.equal(["'self'"]);
    expect(policy.get('frame-ancestors')).to.deep.equal(["'none'"]);
    expect([...policy.values()].flat().filter((source) => /unsafe/.test(source))).to.deep.equal([]);
    expect(html, 'no style attribute, which the policy would refuse').not.to.match(/<[^>]+\sstyle="/);
    expect((await fetch(`${url}/swagger`)).headers.get('content-security-policy'), 'the same each time').to.equal(
      response.headers.get('content-security-policy'),
    );
  });

  it('keeps an authorization in memory only: persistAuthorization is off, so no secret or token goes to localStorage', async () => {
    const html = await (await fetch(`${url}/swagger`)).text();
    const options = JSON.parse(/const options = (\{.*\});/.exec(html)![1]!) as Record<string, unknown>;
    expect(options).to.include({ persistAuthorization: false });
  });

  it('leaves paths that only start like its prefix alone', async () => {
    expect((await fetch(`${url}/swaggerish`, { method: 'POST' })).status).to.equal(404);
  });
});
