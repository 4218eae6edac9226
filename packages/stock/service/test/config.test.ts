import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONFIG, DEFAULT_CONFIG_FILE, loadConfig } from '../src';

describe('loadConfig', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'stock-config-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('defaults to port 8080 and the embedded SQLite file', () => {
    expect(loadConfig({}, directory)).to.deep.equal(DEFAULT_CONFIG);
    expect(DEFAULT_CONFIG).to.include({
      port: 8080,
      databaseUrl: 'sqlite:./data/stock.db',
      logLevel: 'info',
      dbPoolSize: 10,
      idempotencyTtlSeconds: 86_400,
      shutdownDelayMs: 2_000,
    });
  });

  it('takes the OpenAPI file from the entry that knows the workspace, lets OPENAPI_FILE win, and has none otherwise', () => {
    expect(DEFAULT_CONFIG.openApiFile).to.equal('');
    expect(loadConfig({}, directory).openApiFile).to.equal('');
    expect(loadConfig({}, directory, { openApiFile: '/workspace/docs/openapi.yaml' }).openApiFile).to.equal(
      '/workspace/docs/openapi.yaml',
    );
    expect(
      loadConfig({ OPENAPI_FILE: '/elsewhere.yaml' }, directory, { openApiFile: '/workspace/docs/openapi.yaml' })
        .openApiFile,
    ).to.equal('/elsewhere.yaml');
  });

  it('reads the configuration file, and lets the environment win', () => {
    writeFileSync(
      join(directory, DEFAULT_CONFIG_FILE),
      JSON.stringify({ port: 9000, databaseUrl: 'postgres://db/stock' }),
    );
    expect(loadConfig({}, directory)).to.include({ port: 9000, databaseUrl: 'postgres://db/stock' });
    expect(loadConfig({ PORT: '9100', DATABASE_URL: 'memory:' }, directory)).to.include({
      port: 9100,
      databaseUrl: 'memory:',
    });
  });

  it('reads the file STOCK_CONFIG names, and fails if it is missing', () => {
    writeFileSync(join(directory, 'other.json'), JSON.stringify({ logLevel: 'debug' }));
    expect(loadConfig({ STOCK_CONFIG: 'other.json' }, directory).logLevel).to.equal('debug');
    expect(() => loadConfig({ STOCK_CONFIG: 'absent.json' }, directory)).to.throw(/does not exist/);
  });

  it('refuses a port that is not one', () => {
    for (const PORT of ['http', '-1', '65536', '80.5']) {
      expect(() => loadConfig({ PORT }, directory), PORT).to.throw(/PORT must be an integer/);
    }
  });

  it('allocates holds by priority and restores low stock 1 above its threshold unless told otherwise', () => {
    expect(DEFAULT_CONFIG).to.include({ reservationAllocation: 'priority', lowStockHysteresis: 1 });
    const env = { RESERVATION_ALLOCATION: 'most-available', LOW_STOCK_HYSTERESIS: '0' };
    expect(loadConfig(env, directory)).to.include({ reservationAllocation: 'most-available', lowStockHysteresis: 0 });
  });

  it('refuses an allocation it does not know and a hysteresis that is not a count, naming the setting', () => {
    expect(() => loadConfig({ RESERVATION_ALLOCATION: 'nearest' }, directory)).to.throw(
      /RESERVATION_ALLOCATION must be one of priority, most-available, not "nearest"/,
    );
    for (const LOW_STOCK_HYSTERESIS of ['-1', '1.5', 'some'])
      expect(() => loadConfig({ LOW_STOCK_HYSTERESIS }, directory), LOW_STOCK_HYSTERESIS).to.throw(
        /LOW_STOCK_HYSTERESIS must be an integer from 0 to 2147483647/,
      );
  });

  it('refuses a log level winston does not know, and a pool too small to migrate', () => {
    expect(() => loadConfig({ LOG_LEVEL: 'INFO' }, directory)).to.throw(/LOG_LEVEL must be one of/);
    expect(() => loadConfig({ DB_POOL_SIZE: '1' }, directory)).to.throw(/DB_POOL_SIZE/);
  });

  it('refuses a key of the configuration file it does not know, naming it', () => {
    writeFileSync(join(directory, DEFAULT_CONFIG_FILE), JSON.stringify({ prot: 1, port: 9000 }));
    expect(() => loadConfig({}, directory)).to.throw(/unknown setting "prot"; known: port, host,/);
  });

  it('listens on loopback only while tokens are off, on every interface once they are on, and where HOST says in either case', () => {
    const issuer = { AUTH_ISSUER: 'https://id.example.com' };
    expect(DEFAULT_CONFIG.host).to.equal('127.0.0.1');
    expect(loadConfig({}, directory).host).to.equal('127.0.0.1');
    expect(loadConfig({ HOST: '' }, directory).host).to.equal('127.0.0.1');
    expect(loadConfig(issuer, directory).host).to.equal('');
    expect(loadConfig({ HOST: '0.0.0.0' }, directory).host).to.equal('0.0.0.0');
    expect(loadConfig({ ...issuer, HOST: '127.0.0.1' }, directory).host).to.equal('127.0.0.1');
    writeFileSync(join(directory, DEFAULT_CONFIG_FILE), JSON.stringify({ host: '::' }));
    expect(loadConfig({}, directory).host).to.equal('::');
  });

  it('reads the operational limits from the environment', () => {
    const config = loadConfig(
      { SHUTDOWN_GRACE_MS: '2500', REQUEST_TIMEOUT_MS: '1000', IDEMPOTENCY_TTL_SECONDS: '60' },
      directory,
    );
    expect(config).to.include({ shutdownGraceMs: 2500, requestTimeoutMs: 1000, idempotencyTtlSeconds: 60 });
    expect(() => loadConfig({ IDEMPOTENCY_TTL_SECONDS: '0' }, directory)).to.throw(/IDEMPOTENCY_TTL_SECONDS/);
  });

  it('sweeps retention every minute unless told otherwise, and takes retentions as short as a drill needs', () => {
    expect(loadConfig({}, directory)).to.include({ retentionSweepMs: 60_000, outboxRetentionSeconds: 86_400 });
    expect(loadConfig({ RETENTION_SWEEP_MS: '5000', OUTBOX_RETENTION_SECONDS: '10' }, directory)).to.include({
      retentionSweepMs: 5000,
      outboxRetentionSeconds: 10,
    });
    expect(() => loadConfig({ RETENTION_SWEEP_MS: '0' }, directory)).to.throw(/RETENTION_SWEEP_MS/);
    expect(() => loadConfig({ OUTBOX_RETENTION_SECONDS: '0' }, directory)).to.throw(/OUTBOX_RETENTION_SECONDS/);
  });

  it('keeps settled webhook deliveries a week unless WEBHOOK_RETENTION gives a duration with its unit', () => {
    expect(loadConfig({}, directory)).to.include({ webhookRetentionMs: 7 * 86_400_000 });
    expect(loadConfig({ WEBHOOK_RETENTION: '36h' }, directory)).to.include({ webhookRetentionMs: 36 * 3_600_000 });
    expect(loadConfig({ WEBHOOK_RETENTION: '90s' }, directory)).to.include({ webhookRetentionMs: 90_000 });
    for (const bad of ['7', '0s', '2y', '400d', '-1d', '1.5h'])
      expect(() => loadConfig({ WEBHOOK_RETENTION: bad }, directory), bad).to.throw(
        /WEBHOOK_RETENTION must be a duration such as 90s, 30m, 36h or 7d/,
      );
  });
});
