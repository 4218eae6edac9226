import { eventually } from '@platform/test-kit';
import { createTokenVerifier, InvalidTokenError, type TokenVerifier } from '@platform/http';
import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { type FakeIssuer, newKeyPair, startFakeIssuer } from './fake-issuer';

const STOCK = 'urn:commerce:stock';

const refusal = (verifier: TokenVerifier, token: string) =>
  verifier.verify(token).then(
    () => undefined,
    (error: unknown) => error,
  );

describe('the verifier’s key set and its memory of verified tokens', function () {
  this.timeout(20_000);
  let issuer: FakeIssuer;
  let logs: { level: string; message: string }[];
  const logger = {
    info: (message: string) => logs.push({ level: 'info', message }),
    warn: (message: string) => logs.push({ level: 'warn', message }),
    error: (message: string) => logs.push({ level: 'error', message }),
  };
  /** A short maximum age and cooldown, so that what takes 10 minutes in production takes a fraction of a second. */
  const verifierFor = (
    options: { keySetMaxAgeMs?: number; keySetCooldownMs?: number; clockToleranceSeconds?: number } = {},
  ) =>
    createTokenVerifier({
      issuer: issuer.issuer,
      audience: STOCK,
      logger,
      keySetMaxAgeMs: 200,
      keySetCooldownMs: 50,
      ...options,
    });

  beforeEach(async () => {
    issuer = await startFakeIssuer();
    logs = [];
  });
  afterEach(async () => issuer.close());

  it('keeps verifying with the last key set it fetched when the issuer is down as that set grows old, and says so once', async () => {
    const verifier = verifierFor();
    expect(await verifier.verify(await issuer.token(STOCK))).to.include({ subject: 'inventory-sync' });
    const tokens = await Promise.all([1, 2, 3, 4].map(() => issuer.token(STOCK)));
    issuer.up = false;
    const fetchesBefore = issuer.jwksFetches;
    // Each of these comes after the key set's maximum age, and after a cooldown: each may try a fetch, and each fetch
    // fails.
    for (const token of tokens) {
      await sleep(250);
      expect(await verifier.verify(token)).to.include({ subject: 'inventory-sync' });
    }
    await eventually('the failed fetches to be over', 5_000, async () => issuer.jwksFetches >= fetchesBefore + 2);
    expect(logs.filter((line) => line.level === 'warn').map((line) => line.message)).to.deep.equal([
      'the token issuer cannot be reached; tokens are checked against the keys fetched last, and tokens signed with a key not among them answer 503',
    ]);
    issuer.up = true;
    await sleep(100);
    expect(await verifier.verify(await issuer.token(STOCK))).to.include({ subject: 'inventory-sync' });
    await eventually('the recovery to be told', 5_000, async () =>
      logs.some((line) => line.message === 'the token issuer answers again'),
    );
  });

  it('asks the issuer for a key it does not hold, answering 503 while the issuer is down and accepting the token once it is back', async () => {
    const verifier = verifierFor();
    await verifier.verify(await issuer.token(STOCK));
    const rotated = await newKeyPair();
    issuer.published = [rotated, ...issuer.published];
    const signedWithNewKey = await issuer.token(STOCK, {}, rotated);
    issuer.up = false;
    const unavailable = await refusal(verifier, signedWithNewKey);
    expect(unavailable).to.include({ name: 'UnavailableError', code: 'AUTH_ISSUER_UNAVAILABLE' });
    issuer.up = true;
    await eventually(
      'the token to be accepted once the issuer answers',
      5_000,
      async () => (await refusal(verifier, signedWithNewKey)) === undefined,
    );
  });

  it('fetches the key set at most once per cooldown however many unknown kids arrive, refusing them with 401', async () => {
    const verifier = verifierFor({ keySetCooldownMs: 1_000, keySetMaxAgeMs: 600_000 });
    await verifier.verify(await issuer.token(STOCK));
    const before = issuer.jwksFetches;
    const strangers = await Promise.all(
      Array.from({ length: 20 }, async () => issuer.token(STOCK, {}, await newKeyPair())),
    );
    const refusals = await Promise.all(strangers.map((token) => refusal(verifier, token)));
    for (const error of refusals)
      expect(error)
        .to.be.instanceOf(InvalidTokenError)
        .and.have.property('message', 'The access token is signed with a key the issuer does not publish.');
    expect(issuer.jwksFetches - before).to.equal(1);
  });

  it('refuses a token whose key the issuer withdrew once it has fetched the set again, though it had verified that token before', async () => {
    const verifier = verifierFor();
    const token = await issuer.token(STOCK);
    await verifier.verify(token);
    issuer.published = [await newKeyPair()];
    await sleep(250);
    // This call sees the set is old and has it fetched again; the next ones see the new set.
    await verifier.verify(token).catch(() => undefined);
    await eventually(
      'the withdrawn key’s token to be refused',
      5_000,
      async () => (await refusal(verifier, token)) instanceof InvalidTokenError,
    );
    expect(await refusal(verifier, token)).to.have.property(
      'message',
      'The access token is signed with a key the issuer does not publish.',
    );
  });

  it('remembers a verified token no longer than its exp', async () => {
    const verifier = verifierFor({ clockToleranceSeconds: 0, keySetMaxAgeMs: 600_000 });
    const exp = Math.floor(Date.now() / 1000) + 2;
    const token = await issuer.token(STOCK, { exp });
    expect(await verifier.verify(token)).to.include({ subject: 'inventory-sync' });
    expect(await verifier.verify(token), 'from memory').to.include({ subject: 'inventory-sync' });
    await sleep(exp * 1000 - Date.now() + 50);
    expect(await refusal(verifier, token))
      .to.be.instanceOf(InvalidTokenError)
      .and.have.property('message', 'The access token has expired.');
  });

  it('remembers nothing of a token it refused, nor of another verifier’s audience', async () => {
    const stock = verifierFor();
    const sales = createTokenVerifier({ issuer: issuer.issuer, audience: 'urn:commerce:sales', keySetCooldownMs: 50 });
    const token = await issuer.token(STOCK);
    expect(await stock.verify(token)).to.include({ subject: 'inventory-sync' });
    expect(await refusal(sales, token))
      .to.be.instanceOf(InvalidTokenError)
      .and.have.property('message', 'The access token is meant for another service.');
    const [header, payload, signature] = token.split('.');
    const tampered = `${header}.${payload}.${signature!.slice(0, -2)}${signature!.endsWith('AA') ? 'BA' : 'AA'}`;
    expect(await refusal(stock, tampered)).to.be.instanceOf(InvalidTokenError);
    expect(await refusal(stock, tampered), 'not remembered as good after a refusal').to.be.instanceOf(
      InvalidTokenError,
    );
  });
});
