import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BACK_OFFICE_CSP } from '../src';
import { echo, type GatewayUnderTest, startTestGateway, startUpstream, type TestUpstream, upstreams } from './support';

const INDEX =
  '<!doctype html><title>Back office</title><script type="module" src="/admin/assets/index-abc.js"></script>';

describe('the gateway serving the back office at /admin/', function () {
  this.timeout(30_000);
  let built: string;
  let upstream: TestUpstream;
  let gateway: GatewayUnderTest;
  let unbuilt: GatewayUnderTest;

  before(async () => {
    built = mkdtempSync(join(tmpdir(), 'back-office-'));
    mkdirSync(join(built, 'assets'));
    writeFileSync(join(built, 'index.html'), INDEX);
    writeFileSync(join(built, 'assets', 'index-abc.js'), 'console.log("app")');
    upstream = await startUpstream(echo('any'));
    gateway = await startTestGateway({ ...upstreams([upstream.url], upstream.url), backOfficeDir: built });
    unbuilt = await startTestGateway({
      ...upstreams([upstream.url], upstream.url),
      backOfficeDir: join(built, 'missing'),
    });
  });
  after(async () => {
    await gateway?.stop();
    await unbuilt?.stop();
    await upstream?.kill();
    rmSync(built, { recursive: true, force: true });
  });

  it('answers index.html for the app and each of its routes, under a policy of its own origin only', async () => {
    for (const path of ['/admin/', '/admin/products/7', '/admin/callback?code=x&state=y']) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status, path).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/html/);
      expect(response.headers.get('cache-control')).to.equal('no-cache');
      expect(response.headers.get('referrer-policy')).to.equal('no-referrer');
      expect(await response.text()).to.equal(INDEX);
      const policy = response.headers.get('content-security-policy')!;
      expect(policy).to.equal(BACK_OFFICE_CSP);
      expect(policy).to.include("script-src 'self'").and.include("frame-ancestors 'none'");
      expect(policy).not.to.include('unsafe-inline').and.not.to.include('unsafe-eval');
    }
    expect(upstream.seen).to.deep.equal([]);
  });

  it('sends /admin to /admin/', async () => {
    const response = await fetch(`${gateway.url}/admin`, { redirect: 'manual' });
    expect(response.status).to.equal(302);
    expect(response.headers.get('location')).to.equal('/admin/');
  });

  it('serves the built assets, cached for good, and 404s a name it does not have or that leaves the folder', async () => {
    const asset = await fetch(`${gateway.url}/admin/assets/index-abc.js`);
    expect(asset.status).to.equal(200);
    expect(asset.headers.get('content-type')).to.match(/^(application|text)\/javascript/);
    expect(asset.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(await asset.text()).to.equal('console.log("app")');
    for (const path of ['/admin/assets/missing.js', '/admin/assets/..%2Findex.html', '/admin/assets/.env']) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status, path).to.equal(404);
      expect(response.headers.get('content-type'), path).to.match(/^application\/problem\+json/);
    }
  });

  it('refuses to be written to: 405 with Allow', async () => {
    const response = await fetch(`${gateway.url}/admin/products`, { method: 'POST' });
    expect(response.status).to.equal(405);
    expect(response.headers.get('allow')).to.equal('GET, HEAD');
  });

  it('says how to build it when it is not built: a 503, not a 500', async () => {
    const response = await fetch(`${unbuilt.url}/admin/`);
    expect(response.status).to.equal(503);
    expect(await response.text()).to.include('pnpm build:back-office');
  });
});
