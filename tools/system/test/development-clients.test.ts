import { readClientsFile } from '@commerce/identity';
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { developmentClientsFile } from '../src/development-clients';

const scopesById = (path: string) =>
  Object.fromEntries(readClientsFile(path).map((client) => [client.clientId, client.scopes]));

describe("start:system's development clients file", () => {
  let folder = '';
  let file = '';
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'system-clients-'));
    file = join(folder, 'data', 'identity-clients.json');
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('is written when missing, mode 0600, with a buyer that holds no stock scope, a stock manager and an orders admin who refunds', () => {
    const written = developmentClientsFile(file);
    expect(written).to.include({ created: true });
    expect(written.added).to.deep.equal([]);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(scopesById(file)).to.deep.equal({
      demo: ['orders:read', 'orders:write'],
      'stock-admin': ['stock:read', 'stock:write', 'stock:reserve', 'stock:fulfil'],
      'sales-service': ['stock:read'],
      'orders-admin': ['orders:admin', 'orders:refund', 'stock:read'],
    });
    expect(
      new Set(readClientsFile(file).map((client) => client.clientSecret)).size,
      'a secret of its own each',
    ).to.equal(4);
  });

  it('is left as it is when it has every development client', () => {
    developmentClientsFile(file);
    const before = readFileSync(file, 'utf8');
    expect(developmentClientsFile(file)).to.deep.include({ created: false, added: [], notices: [] });
    expect(readFileSync(file, 'utf8')).to.equal(before);
  });

  it('from an older start:system gets the clients it lacks, loses the payment provider, gives orders-admin refunds, keeps the rest as they are, and points out a buyer still holding stock scopes', () => {
    const old = [
      {
        clientId: 'demo',
        clientSecret: 'd'.repeat(43),
        scopes: ['stock:read', 'stock:write', 'stock:reserve', 'orders:read', 'orders:write'],
      },
      { clientId: 'sales-service', clientSecret: 's'.repeat(43), scopes: ['stock:read'] },
      { clientId: 'orders-admin', clientSecret: 'o'.repeat(43), scopes: ['orders:admin', 'stock:read'] },
      { clientId: 'payment-provider', clientSecret: 'p'.repeat(43), scopes: ['orders:pay'] },
    ];
    mkdirSync(dirname(file));
    writeFileSync(file, JSON.stringify(old), { mode: 0o600 });
    const merged = developmentClientsFile(file);
    expect(merged).to.deep.include({ created: false, added: ['stock-admin'] });
    expect(merged.notices).to.deep.equal([
      `payment-provider was taken out of ${file}: payments are confirmed by the provider's signed webhooks now, not by a client.`,
      `orders-admin in ${file} was given orders:refund: it refunds orders.`,
      `demo in ${file} still holds stock:read, stock:write, stock:reserve, which a buyer no longer gets (stock-admin manages stock); remove them from it, or delete the file to have the development clients written again.`,
    ]);
    const clients = readClientsFile(file);
    expect(clients.slice(0, 2)).to.deep.equal(old.slice(0, 2));
    expect(clients.slice(2).map((client) => [client.clientId, client.clientSecret, client.scopes])).to.deep.equal([
      ['orders-admin', 'o'.repeat(43), ['orders:admin', 'stock:read', 'orders:refund']],
      ['stock-admin', clients[3]!.clientSecret, ['stock:read', 'stock:write', 'stock:reserve', 'stock:fulfil']],
    ]);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(merged.clients).to.deep.equal(clients);
  });

  it('points out a stock manager from before shipments, which lacks stock:fulfil, and leaves it as it is', () => {
    developmentClientsFile(file);
    const clients = readClientsFile(file).map((client) =>
      client.clientId === 'stock-admin'
        ? { ...client, scopes: ['stock:read', 'stock:write', 'stock:reserve'] }
        : client,
    );
    writeFileSync(file, JSON.stringify(clients), { mode: 0o600 });
    expect(developmentClientsFile(file)).to.deep.include({
      created: false,
      added: [],
      notices: [
        `stock-admin in ${file} lacks stock:fulfil, which ships orders and takes returns; add it to its scopes, or delete the file to have the development clients written again.`,
      ],
    });
    expect(readClientsFile(file)).to.deep.equal(clients);
  });

  it('is refused in one line saying what to do when it is not a JSON array of clients', () => {
    mkdirSync(dirname(file));
    for (const content of ['[{"clientId": ', '{"clientId": "demo"}']) {
      writeFileSync(file, content, { mode: 0o600 });
      expect(() => developmentClientsFile(file))
        .to.throw(/fix it, or delete it to have the development clients written again\.$/)
        .with.property('message')
        .that.does.not.include('\n');
      expect(readFileSync(file, 'utf8'), 'left alone').to.equal(content);
    }
  });
});
