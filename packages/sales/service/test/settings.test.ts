import { expect } from 'chai';
import { DEFAULT_CONFIG, loadConfig } from '../src';

describe('sales settings', () => {
  it('defaults to port 8082, its own SQLite file, stock on 8080 and no token checks, so on loopback only', () => {
    expect(DEFAULT_CONFIG).to.include({
      port: 8082,
      host: '127.0.0.1',
      databaseUrl: 'sqlite:./data/sales.db',
      stockUrl: 'http://127.0.0.1:8080',
      authIssuer: '',
      authAudience: 'urn:commerce:sales',
    });
  });

  it('listens on loopback only while tokens are off, on every interface once they are on, and where HOST says in either case', () => {
    const issuer = { AUTH_ISSUER: 'https://id.example.com' };
    expect(loadConfig({}, '/nonexistent').host).to.equal('127.0.0.1');
    expect(loadConfig({ HOST: '' }, '/nonexistent').host).to.equal('127.0.0.1');
    expect(loadConfig(issuer, '/nonexistent').host).to.equal('');
    expect(loadConfig({ HOST: '0.0.0.0' }, '/nonexistent').host).to.equal('0.0.0.0');
    expect(loadConfig({ ...issuer, HOST: '10.0.0.5' }, '/nonexistent').host).to.equal('10.0.0.5');
  });

  it('refuses a client id without its secret, a client without an issuer, and a STOCK_URL that is not a URL', () => {
    expect(() => loadConfig({ STOCK_CLIENT_ID: 'sales' }, '/nonexistent')).to.throw(
      /STOCK_CLIENT_ID and STOCK_CLIENT_SECRET go together/,
    );
    expect(() => loadConfig({ STOCK_CLIENT_ID: 'sales', STOCK_CLIENT_SECRET: 's' }, '/nonexistent')).to.throw(
      /STOCK_CLIENT_ID needs AUTH_ISSUER/,
    );
    expect(() => loadConfig({ STOCK_URL: 'localhost:8080' }, '/nonexistent')).to.throw(
      /STOCK_URL must be an absolute http or https URL/,
    );
    expect(() => loadConfig({ AUTH_ISSUER: 'not a url' }, '/nonexistent')).to.throw(/AUTH_ISSUER/);
  });
});

describe('The sales service settings for payments', () => {
  it('runs without payments when neither secret is set, pays in EUR unless CURRENCY says otherwise', () => {
    const config = loadConfig({}, '/nonexistent');
    expect(config).to.include({ paymentsApiKey: '', paymentsWebhookSecret: '', paymentsUrl: '', currency: 'EUR' });
    const on = loadConfig(
      {
        PAYMENTS_API_KEY: 'sk_test_sales',
        PAYMENTS_WEBHOOK_SECRET: 'whsec_abc',
        PAYMENTS_URL: 'http://127.0.0.1:8084',
        CURRENCY: 'USD',
      },
      '/nonexistent',
    );
    expect(on).to.include({ paymentsUrl: 'http://127.0.0.1:8084', currency: 'USD' });
  });

  it('refuses one payment secret without the other, a key that is not a secret key, and a currency that is not a code', () => {
    expect(() => loadConfig({ PAYMENTS_API_KEY: 'sk_test_sales' }, '/nonexistent')).to.throw(
      /PAYMENTS_API_KEY and PAYMENTS_WEBHOOK_SECRET go together/,
    );
    expect(() => loadConfig({ PAYMENTS_WEBHOOK_SECRET: 'whsec_abc' }, '/nonexistent')).to.throw(/go together/);
    expect(() => loadConfig({ PAYMENTS_API_KEY: 'pk_test_public' }, '/nonexistent')).to.throw(/secret key/);
    expect(() => loadConfig({ CURRENCY: 'eur' }, '/nonexistent')).to.throw(/CURRENCY must be a currency's ISO 4217/);
  });
});
