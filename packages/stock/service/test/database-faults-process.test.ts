import { createScratchDatabase, type FreezableProxy, freezableProxy, type ScratchDatabase } from '@platform/test-kit';
import { aProductBody } from '@stock/domain/testing';
import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ServiceProcess, startProcess } from './process-support';
import { json } from './support';
import { checkedFetch } from './checked-fetch';

/** The scratch database's URL, with the connection going through the proxy. */
function throughProxy(database: ScratchDatabase, proxy: FreezableProxy): string {
  const url = new URL(database.url);
  url.port = String(proxy.port);
  return url.toString();
}

/** Every stdout line that is not one JSON object (the driver's own output, a stack trace printed raw…). */
function notJson(lines: readonly string[]): string[] {
  return lines.filter(Boolean).filter((line) => {
    try {
      const parsed: unknown = JSON.parse(line);
      return typeof parsed !== 'object' || parsed === null || Array.isArray(parsed);
    } catch {
      return true;
    }
  });
}

const messages = (service: ServiceProcess) =>
  service.stdout.filter(Boolean).map((line) => String((JSON.parse(line) as { message?: unknown }).message));

describe('the service process on a stalled or failing PostgreSQL', function () {
  this.timeout(90_000);
  let database: ScratchDatabase;
  let proxy: FreezableProxy;
  let service: ServiceProcess | undefined;

  beforeEach(async function () {
    database = await createScratchDatabase(this);
    proxy = await freezableProxy(Number(new URL(database.url).port || 5432));
  });
  afterEach(async () => {
    service?.child.kill('SIGKILL');
    await service?.exited;
    service = undefined;
    proxy?.thaw();
    await proxy?.close();
    await database?.drop();
  });

  it('exits on SIGTERM within its grace period while the database stays frozen, non-zero because it cut a request', async () => {
    const graceMs = 1000;
    // Statements and pool waits outlast the freeze's part of the test, so only the shutdown can end the request;
    // the reservation sweep runs often, so a background run is likely stuck on the frozen database too.
    service = startProcess({
      DATABASE_URL: throughProxy(database, proxy),
      DB_CREATE_DATABASE: 'true',
      DB_QUERY_TIMEOUT_MS: '60000',
      DB_ACQUIRE_TIMEOUT_MS: '60000',
      RESERVATION_SWEEP_MS: '100',
      SHUTDOWN_DELAY_MS: '0',
      SHUTDOWN_GRACE_MS: String(graceMs),
    });
    const url = `http://127.0.0.1:${await service.port()}`;
    expect((await checkedFetch(`${url}/api/products`, json(aProductBody()))).status).to.equal(201);

    proxy.freeze();
    const inFlight = checkedFetch(`${url}/api/products`, json(aProductBody({ name: 'Never written' }))).then(
      (response) => response.status,
      () => 'cut' as const,
    );
    // Long enough for the request to reach the frozen connection and for a sweep to start on another.
    await sleep(500);

    const signalled = Date.now();
    service.child.kill('SIGTERM');
    // A correctness bound, far inside the freeze (which outlasts the test): the grace period, then the bounded
    // close of the database; a process that waits for the database would still be alive at the deadline.
    const deadline = sleep(graceMs + 8_000, 'still running' as const);
    const exit = await Promise.race([service.exited, deadline]);
    expect(exit, `${service.stdout.join('\n')}\n${service.stderr.join('\n')}`).to.equal(1);
    expect(Date.now() - signalled).to.be.at.least(graceMs);
    expect(await inFlight).to.equal('cut');
    expect(messages(service)).to.include.members([
      'stopping',
      'shutdown grace period over: closing the remaining connections',
      'stopped, cutting work that had not finished',
    ]);
    expect(notJson(service.stdout)).to.deep.equal([]);
  });

  it('writes nothing but JSON lines to stdout while the database is down, and logs the outage once and the recovery once', async () => {
    service = startProcess({
      DATABASE_URL: throughProxy(database, proxy),
      DB_CREATE_DATABASE: 'true',
      SHUTDOWN_DELAY_MS: '0',
    });
    const url = `http://127.0.0.1:${await service.port()}`;
    const created = (await (await checkedFetch(`${url}/api/products`, json(aProductBody()))).json()) as { id: number };

    await proxy.down();
    const outage = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 === 0
          ? checkedFetch(`${url}/api/products/${created.id}`)
          : checkedFetch(`${url}/api/products`, json(aProductBody()))
        ).then((r) => r.status),
      ),
    );
    expect(outage).to.deep.equal(Array(30).fill(503));
    expect((await checkedFetch(`${url}/health/ready`)).status).to.equal(503);

    await proxy.up();
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await checkedFetch(`${url}/api/products/${created.id}`)).status;
      if (status !== 200) await sleep(100);
    }
    expect(status).to.equal(200);
    expect(await service.stop()).to.equal(0);

    expect(notJson(service.stdout), 'stdout lines that are not JSON objects').to.deep.equal([]);
    const states = messages(service).filter((message) => /^database (unavailable|reachable again)/.test(message));
    expect(states).to.deep.equal([
      'database unavailable: requests answer 503 until it is back',
      'database reachable again',
    ]);
    expect(
      service.stdout.filter((line) => /"level":"error"/.test(line)),
      'no error (stack trace) lines',
    ).to.deep.equal([]);
    expect(service.stderr.filter(Boolean)).to.deep.equal([]);
  });
});
