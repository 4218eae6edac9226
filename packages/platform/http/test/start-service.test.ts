import { expect } from 'chai';
import { createHttpApp, problemsFor } from '../src';
import { RELEASE_TIMEOUT_MS, startService } from '../src/service';
import { recordingLogger } from './support';

const CONFIG = {
  port: 0,
  host: '127.0.0.1',
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  shutdownDelayMs: 0,
  shutdownGraceMs: 100,
};

describe('startService', function () {
  this.timeout(20_000);

  it('abandons background work and a database that do not stop in time, and says the stop was not clean', async () => {
    const log = recordingLogger();
    let databaseClosed = false;
    const service = await startService(CONFIG, async () => ({
      logger: log.logger,
      http: createHttpApp({ logger: log.logger, toProblem: problemsFor({}) }),
      database: {
        canWrite: async () => true,
        migrate: async () => [],
        close: async () => {
          databaseClosed = true;
          return true;
        },
      },
      // A sweep stuck on a stalled database: its stop waits for a run that never ends.
      startBackground: () => [{ stop: () => new Promise<void>(() => {}) }],
    }));
    const started = Date.now();
    // A correctness bound: the stuck work never stops, so only the bound ends the close.
    const clean = await Promise.race([
      service.close(),
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), RELEASE_TIMEOUT_MS + 10_000)),
    ]);
    expect(clean).to.equal(false);
    expect(Date.now() - started).to.be.at.least(RELEASE_TIMEOUT_MS);
    expect(databaseClosed, 'the database is still closed after the abandoned work').to.equal(true);
    expect(log.lines.map((l) => l.message)).to.include('the background work did not stop in time: it was abandoned');
  });
});
