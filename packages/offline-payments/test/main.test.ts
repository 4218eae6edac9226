import { startServiceProcess } from '@platform/test-kit';
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const KEY = 'sk_test_offline_provider';

describe('the offline provider’s settings', () => {
  it('reads the chaos it is asked for, in any order, once each', () => {
    const config = loadConfig({ PAYMENTS_API_KEY: KEY, PAYMENTS_CHAOS: 'delay, duplicate,delay,reorder' }, '/');
    expect(config.chaos).to.deep.equal(['delay', 'duplicate', 'reorder']);
    expect(loadConfig({ PAYMENTS_API_KEY: KEY }, '/')).to.include({
      port: 8084,
      host: '127.0.0.1',
      chaosDelayMs: 2000,
    });
  });

  it('refuses a mode it does not know, a live key, and a backoff cap below the first retry, naming each', () => {
    expect(() => loadConfig({ PAYMENTS_API_KEY: KEY, PAYMENTS_CHAOS: 'jitter' }, '/')).to.throw(/^PAYMENTS_CHAOS must/);
    expect(() => loadConfig({ PAYMENTS_API_KEY: 'sk_live_abcdefgh12' }, '/')).to.throw(/^PAYMENTS_API_KEY must/);
    expect(() =>
      loadConfig({ PAYMENTS_API_KEY: KEY, PAYMENTS_RETRY_FIRST_MS: '5000', PAYMENTS_RETRY_MAX_MS: '1000' }, '/'),
    ).to.throw(/^PAYMENTS_RETRY_MAX_MS \(1000\) must not be below/);
  });
});

describe('pnpm start:payments', function () {
  this.timeout(90_000);

  it('exits 1 with one line when PAYMENTS_API_KEY is not set', async () => {
    const process = startServiceProcess(MAIN, { PAYMENTS_API_KEY: undefined });
    expect(await process.exited).to.equal(1);
    expect(process.stderr.filter(Boolean)).to.deep.equal([
      'payments provider failed to start: PAYMENTS_API_KEY must be a Stripe test secret key, sk_test_ followed by at least 8 letters or digits (the key the provider accepts), not empty.',
    ]);
  });

  it('serves /health and Stripe’s API, then stops cleanly on SIGTERM', async () => {
    const process = startServiceProcess(MAIN, { PAYMENTS_API_KEY: KEY, SHUTDOWN_DELAY_MS: '0' });
    try {
      const port = await process.port();
      expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).to.equal(200);
      const intent = await fetch(`http://127.0.0.1:${port}/v1/payment_intents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'amount=2450&currency=eur&capture_method=manual',
      });
      expect(intent.status).to.equal(200);
    } finally {
      expect(await process.stop()).to.equal(0);
    }
  });
});
