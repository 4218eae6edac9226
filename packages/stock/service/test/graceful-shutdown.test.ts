import type { UnitOfWork } from '@platform/kernel';
import { eventually } from '@platform/test-kit';
import type { StockTransaction } from '@stock/domain';
import { aProductBody } from '@stock/domain/testing';
import { expect } from 'chai';
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sinon from 'sinon';
import type { DependencyContainer } from 'tsyringe';
import { DEFAULT_CONFIG, startStockService, Tokens } from '../src';
import { capturingLogger, json } from './support';
import { checkedFetch } from './checked-fetch';

/** Units of work that wait until the test opens the gate: requests stay in flight as long as it likes. */
function gate(container: DependencyContainer) {
  const inner = container.resolve(Tokens.UnitOfWork);
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let waiting = 0;
  const unitOfWork: UnitOfWork<StockTransaction> = {
    async run(work, options) {
      waiting += 1;
      await opened;
      return inner.run(work, options);
    },
  };
  container.register(Tokens.UnitOfWork, { useValue: unitOfWork });
  return { open, waiting: () => waiting };
}

describe('graceful shutdown', function () {
  this.timeout(30_000);

  it('turns readiness to 503, lets in-flight requests finish, then closes the database', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'stock-shutdown-'));
    let gated!: ReturnType<typeof gate>;
    let databaseClose!: sinon.SinonSpy;
    const service = await startStockService(
      {
        ...DEFAULT_CONFIG,
        port: 0,
        databaseUrl: `sqlite:${join(directory, 'stock.db')}`,
        dbCreateDatabase: 'true',
        shutdownDelayMs: 300,
        shutdownGraceMs: 10_000,
      },
      {
        logger: capturingLogger([]),
        configure: (container) => {
          gated = gate(container);
          databaseClose = sinon.spy(container.resolve(Tokens.Database), 'close');
        },
      },
    );
    try {
      const inFlight = Array.from({ length: 10 }, () =>
        checkedFetch(`${service.url}/api/products`, json(aProductBody())),
      );
      await eventually('ten requests in flight', 30_000, () => gated.waiting() === 10);

      const closed = service.close();
      const ready = await checkedFetch(`${service.url}/health/ready`);
      expect(ready.status).to.equal(503);
      expect(await ready.json()).to.include({ code: 'NOT_READY' });
      sinon.assert.notCalled(databaseClose);

      gated.open();
      const responses = await Promise.all(inFlight);
      expect(responses.map((r) => r.status)).to.deep.equal(Array(10).fill(201));
      await closed;
      sinon.assert.calledOnce(databaseClose);
      const refused = await checkedFetch(`${service.url}/health/live`).then(
        () => 'answered',
        () => 'refused',
      );
      expect(refused).to.equal('refused');
    } finally {
      await service.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('cuts connections still busy when the grace period is over, and still closes', async () => {
    let gated!: ReturnType<typeof gate>;
    const service = await startStockService(
      { ...DEFAULT_CONFIG, port: 0, databaseUrl: 'memory:', shutdownGraceMs: 200 },
      { logger: capturingLogger([]), configure: (container) => (gated = gate(container)) },
    );
    const stuck = checkedFetch(`${service.url}/api/products`, json(aProductBody())).then(
      (r) => r.status,
      () => 'cut',
    );
    await eventually('the request in flight', 30_000, () => gated.waiting() === 1);
    const started = Date.now();
    await service.close();
    expect(Date.now() - started).to.be.below(5000);
    expect(await stuck).to.equal('cut');
    gated.open();
  });

  describe('the process, on SIGTERM', () => {
    let child: ChildProcess | undefined;
    afterEach(() => child?.kill('SIGKILL'));

    it('finishes a request that is still arriving, closes keep-alive connections and exits 0', async () => {
      child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'src', 'main.ts')], {
        env: { ...process.env, PORT: '0', DATABASE_URL: 'memory:', LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const lines: Record<string, unknown>[] = [];
      child.stdout!.on('data', (chunk: Buffer) => {
        for (const line of String(chunk).split('\n').filter(Boolean))
          lines.push(JSON.parse(line) as Record<string, unknown>);
      });
      const listening = () => lines.find((l) => String(l.message).startsWith('stock service listening'));
      await eventually('the service to listen', 30_000, () => listening() !== undefined);
      const port = new URL(String(listening()!.url)).port;
      const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));

      // An idle keep-alive connection must not hold the process open.
      const agent = new http.Agent({ keepAlive: true });
      await new Promise((resolve) =>
        http.get({ host: '127.0.0.1', port, path: '/health/live', agent }, (res) => res.resume().on('end', resolve)),
      );

      // A request whose headers arrived but whose body has not: it is in flight when SIGTERM lands.
      const body = JSON.stringify(aProductBody({ name: 'In flight' }));
      const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/api/products',
            method: 'POST',
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (res) => {
            let text = '';
            res
              .on('data', (c: Buffer) => (text += String(c)))
              .on('end', () => resolve({ status: res.statusCode!, body: text }));
          },
        );
        req.on('error', reject);
        req.write(body.slice(0, 10));
        setTimeout(() => {
          child!.kill('SIGTERM');
          setTimeout(() => req.end(body.slice(10)), 300);
        }, 200);
      });

      const { status, body: created } = await answer;
      expect(status).to.equal(201);
      expect(JSON.parse(created)).to.include({ name: 'In flight' });
      expect(await exited).to.equal(0);
      expect(lines.map((l) => l.message)).to.include.members(['stopping', 'stopped']);
      agent.destroy();
    });
  });
});
