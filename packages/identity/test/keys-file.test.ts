import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { calculateJwkThumbprint } from 'jose';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createKeysFileIfMissing,
  type KeyRing,
  newSigningKey,
  providerJwks,
  RETIREMENT_MARGIN_SECONDS,
  readKeysFile,
  rotate,
  rotateKeysFile,
} from '../src';

chai.use(chaiAsPromised);
const { expect } = chai;

describe('the signing keys file', () => {
  let folder = '';
  let file = '';
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'identity-keys-'));
    file = join(folder, 'secrets', 'keys.json');
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('is created on first use with mode 0600, in a folder of mode 0700, holding one private ES256 key named by its thumbprint', async () => {
    const kid = await createKeysFileIfMissing(file);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(statSync(join(folder, 'secrets')).mode & 0o777).to.equal(0o700);
    const { keys } = await readKeysFile(file);
    expect(keys).to.have.length(1);
    expect(keys[0]).to.include({ kid, kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(keys[0]!.d).to.be.a('string');
    const { d: _, ...publicPart } = keys[0]!;
    expect(await calculateJwkThumbprint(publicPart, 'sha256')).to.equal(kid);
  });

  it('is left alone when it exists', async () => {
    await createKeysFileIfMissing(file);
    const before = readFileSync(file, 'utf8');
    expect(await createKeysFileIfMissing(file)).to.equal(undefined);
    expect(readFileSync(file, 'utf8')).to.equal(before);
  });

  it('is refused when other users may read it', async () => {
    await createKeysFileIfMissing(file);
    chmodSync(file, 0o644);
    await expect(readKeysFile(file)).to.be.rejectedWith(
      `The keys file ${file} can be read by other users (mode 644); chmod 600 it.`,
    );
  });

  const malformed: [string, (ring: KeyRing) => unknown, RegExp][] = [
    ['not a JWKS', () => [1, 2], /must be a JWKS \(\{ "keys": \[...\] \}\) with at least one key/],
    [
      'a public key only',
      ({ keys: [key] }) => ({ keys: [{ ...key, d: undefined }] }),
      /Key 1 of .* is not a private EC P-256 JWK with a kid/,
    ],
    [
      'a key meant for HS256',
      ({ keys: [key] }) => ({ keys: [{ ...key, alg: 'HS256' }] }),
      /Key 1 of .* must be for alg ES256 and use sig/,
    ],
    [
      'a broken coordinate',
      ({ keys: [key] }) => ({ keys: [{ ...key, x: 'AAAA' }] }),
      /Key 1 of .* is not a usable key/,
    ],
    [
      'two keys with one kid',
      ({ keys: [key] }) => ({ keys: [key, { ...key, retiredAt: new Date().toISOString() }] }),
      /has two keys with one kid/,
    ],
    [
      'a retired key first',
      ({ keys: [key] }) => ({ keys: [{ ...key, retiredAt: new Date().toISOString() }] }),
      /starts with a retired key/,
    ],
  ];
  for (const [what, change, message] of malformed) {
    it(`is refused in one line when it holds ${what}`, async () => {
      const ring = { keys: [await newSigningKey()] };
      writeFileSync(join(folder, 'keys.json'), JSON.stringify(change(ring)), { mode: 0o600 });
      await expect(readKeysFile(join(folder, 'keys.json'))).to.be.rejectedWith(message);
    });
  }

  it('goes to oidc-provider without the retirement bookkeeping', async () => {
    const ring = {
      keys: [await newSigningKey(), { ...(await newSigningKey()), retiredAt: '2026-01-01T00:00:00.000Z' }],
    };
    expect(providerJwks(ring).keys.map((key) => Object.keys(key).sort())).to.deep.equal([
      ['alg', 'crv', 'd', 'kid', 'kty', 'use', 'x', 'y'],
      ['alg', 'crv', 'd', 'kid', 'kty', 'use', 'x', 'y'],
    ]);
  });
});

describe('a key rotation', () => {
  const TTL = 600;
  const at = (iso: string) => new Date(iso);

  it('puts the new key first and records when the one it replaces stopped signing', async () => {
    const [old, fresh] = [await newSigningKey(), await newSigningKey()];
    const { ring, dropped } = rotate({ keys: [old] }, fresh, at('2026-11-01T10:00:00Z'), TTL);
    expect(ring.keys.map((key) => [key.kid, key.retiredAt])).to.deep.equal([
      [fresh.kid, undefined],
      [old.kid, '2026-11-01T10:00:00.000Z'],
    ]);
    expect(dropped).to.deep.equal([]);
  });

  it('keeps a retired key while tokens it signed may live, and drops it on the next rotation after that', async () => {
    const [a, b, c, d] = [await newSigningKey(), await newSigningKey(), await newSigningKey(), await newSigningKey()];
    const first = rotate({ keys: [a] }, b, at('2026-11-01T10:00:00Z'), TTL).ring;
    const soon = new Date(Date.parse('2026-11-01T10:00:00Z') + (TTL + RETIREMENT_MARGIN_SECONDS - 1) * 1000);
    const second = rotate(first, c, soon, TTL);
    expect(second.ring.keys.map((key) => key.kid)).to.deep.equal([c.kid, b.kid, a.kid]);
    expect(second.ring.keys[2]!.retiredAt).to.equal('2026-11-01T10:00:00.000Z');
    const later = new Date(Date.parse('2026-11-01T10:00:00Z') + (TTL + RETIREMENT_MARGIN_SECONDS) * 1000);
    const third = rotate(second.ring, d, later, TTL);
    expect(third.ring.keys.map((key) => key.kid)).to.deep.equal([d.kid, c.kid, b.kid]);
    expect(third.dropped).to.deep.equal([a.kid]);
  });

  it('rewrites the file whole, still mode 0600', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'identity-rotate-'));
    try {
      const file = join(folder, 'keys.json');
      const kid = await createKeysFileIfMissing(file);
      const { current } = await rotateKeysFile(file, TTL);
      expect(statSync(file).mode & 0o777).to.equal(0o600);
      expect((await readKeysFile(file)).keys.map((key) => key.kid)).to.deep.equal([current.kid, kid]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
