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
