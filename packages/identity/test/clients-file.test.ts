import { expect } from 'chai';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readClientsFile } from '../src';

const SECRET = 's'.repeat(32);

describe('the clients file', () => {
  let folder = '';
  let file = '';
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'identity-clients-'));
    file = join(folder, 'clients.json');
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  const write = (content: unknown) =>
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content), { mode: 0o600 });

  it('gives each client its id, secret and scopes, each scope once', () => {
    write([{ clientId: 'checkout', clientSecret: SECRET, scopes: ['stock:reserve', 'orders:write', 'stock:reserve'] }]);
    expect(readClientsFile(file)).to.deep.equal([
      { clientId: 'checkout', clientSecret: SECRET, scopes: ['stock:reserve', 'orders:write'] },
    ]);
  });

  const refusals: [string, unknown, RegExp][] = [
    ['not JSON', '[{"clientId": ', /is not valid JSON: /],
    ['not an array', { clientId: 'a' }, /must hold a JSON array of clients/],
    ['no clients', [], /lists no clients/],
    ['an entry that is not an object', ['checkout'], /Client 1 of .* must be an object/],
    [
      'a misspelt property',
      [{ clientId: 'a', clientSecret: SECRET, scope: ['stock:read'] }],
      /Client 1 of .* has unknown property "scope"; known: clientId, clientSecret, scopes/,
    ],
    [
      'a missing clientId',
      [{ clientSecret: SECRET, scopes: ['stock:read'] }],
      /Client 1 of .*: clientId must be 1 to 128 letters/,
    ],
    [
      'a clientId with a colon',
      [{ clientId: 'a:b', clientSecret: SECRET, scopes: ['stock:read'] }],
      /clientId must be/,
    ],
    [
      'a clientId listed twice',
      [
        { clientId: 'a', clientSecret: SECRET, scopes: ['stock:read'] },
        { clientId: 'a', clientSecret: SECRET, scopes: ['stock:read'] },
      ],
      /Client 2 of .* \(a\): clientId is listed twice/,
    ],
    [
      'the back office’s own client id',
      [{ clientId: 'back-office', clientSecret: SECRET, scopes: ['orders:read'] }],
      /\(back-office\): clientId back-office is the back office's own; choose another name/,
    ],
    [
      'a short secret',
      [{ clientId: 'a', clientSecret: 'short', scopes: ['stock:read'] }],
      /\(a\): clientSecret must be 32 to 512 visible ASCII characters/,
    ],
    [
      'a secret with a space',
      [{ clientId: 'a', clientSecret: `${SECRET} x`, scopes: ['stock:read'] }],
      /clientSecret must be 32 to 512 visible ASCII/,
    ],
    [
      'no scopes',
      [{ clientId: 'a', clientSecret: SECRET, scopes: [] }],
      /\(a\): scopes must be a non-empty array of stock:read/,
    ],
    [
      'an unknown scope',
      [{ clientId: 'a', clientSecret: SECRET, scopes: ['stock:read', 'stock:delete'] }],
      /\(a\): unknown scope "stock:delete"; known: stock:read, stock:write, stock:reserve, stock:fulfil, webhooks:manage, orders:read, orders:write, orders:admin, orders:refund/,
    ],
  ];
  for (const [what, content, message] of refusals) {
    it(`is refused in one line naming the file: ${what}`, () => {
      write(content);
      expect(() => readClientsFile(file))
        .to.throw(message)
        .with.property('message')
        .that.includes(file)
        .and.does.not.include('\n');
    });
  }

  for (const mode of [0o620, 0o604, 0o602, 0o644, 0o660]) {
    it(`is refused when other users may read or write it (mode ${mode.toString(8)}): it holds the secrets in plain text`, () => {
      write([{ clientId: 'checkout', clientSecret: SECRET, scopes: ['stock:read'] }]);
      chmodSync(file, mode);
      expect(() => readClientsFile(file)).to.throw(
        `The clients file ${file} can be read or written by other users (mode ${mode.toString(8)}); chmod 600 it.`,
      );
    });
  }

  it('is read when only its owner may read it', () => {
    write([{ clientId: 'checkout', clientSecret: SECRET, scopes: ['stock:read'] }]);
    chmodSync(file, 0o400);
    expect(readClientsFile(file)).to.have.length(1);
  });

  it('is read when its group may read it and the service is in that group, as Kubernetes mounts a Secret', () => {
    write([{ clientId: 'checkout', clientSecret: SECRET, scopes: ['stock:read'] }]);
    chmodSync(file, 0o440);
    expect(readClientsFile(file)).to.have.length(1);
  });

  it('is refused when missing, with what it should hold', () => {
    expect(() => readClientsFile(file)).to.throw(
      `The clients file ${file} (IDENTITY_CLIENTS_FILE) does not exist; it holds [{ "clientId", "clientSecret", "scopes": [...] }].`,
    );
  });
});
