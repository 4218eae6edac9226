import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pacedLatency, percentile } from '../src/paced-latency';

chai.use(chaiAsPromised);
const { expect } = chai;

describe('pacedLatency', () => {
  let server: http.Server;
  let base: string;
  const paths: string[] = [];

  before(async () => {
    server = http.createServer((request, response) => {
      paths.push(request.url ?? '');
      response.writeHead(request.url === '/missing' ? 404 : 200).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('sends rate × seconds requests and summarises every latency', async () => {
    paths.length = 0;
    let n = 0;
    const summary = await pacedLatency(base, () => `/item/${++n}`, { rate: 200, seconds: 0.5 });
    expect(summary.requests).to.equal(100);
    expect(paths).to.have.length(100);
    expect(new Set(paths).size).to.equal(100);
    expect(summary.p50Ms).to.be.greaterThan(0);
    expect(summary.p50Ms).to.be.at.most(summary.p90Ms);
    expect(summary.p90Ms).to.be.at.most(summary.p99Ms);
  });

  it('fails when a request is not answered 200, rather than reporting it as fast', async () => {
    await expect(pacedLatency(base, () => '/missing', { rate: 100, seconds: 0.1 })).to.be.rejectedWith(
      '10 of 10 requests failed, first: status 404',
    );
  });

  it('reads percentiles by nearest rank', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 0.5)).to.equal(50);
    expect(percentile(sorted, 0.99)).to.equal(99);
    expect(percentile([7], 0.99)).to.equal(7);
  });
});
