import { inSpan, SpanKind, startTracing, type Tracing } from '@platform/runtime';
import { eventually, type ExportingReceiver, exportToOtlpReceiver } from '@platform/test-kit';
import { expect } from 'chai';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import sinon from 'sinon';
import { createTokenVerifier, type TokenVerifier } from '../src';

const KIND = { client: 3 } as const;
const AUDIENCE = 'urn:test:api';

/** An issuer on loopback that serves its metadata and one key, and keeps the path and headers of every request. */
async function issuerOnLoopback() {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  const received: { path: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((request, response) => {
    received.push({ path: request.url!, headers: request.headers });
    const json = (body: unknown) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.url === '/.well-known/openid-configuration') return json({ issuer, jwks_uri: `${issuer}/jwks` });
    if (request.url === '/jwks') return json({ keys: [{ ...jwk, kid, alg: 'ES256', use: 'sig' }] });
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const now = () => Math.floor(Date.now() / 1000);
  return {
    issuer,
    received,
    token: () =>
      new SignJWT({ sub: 'checkout', client_id: 'checkout', jti: randomUUID() })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
        .setIssuer(issuer)
        .setAudience(AUDIENCE)
        .setIssuedAt(now())
        .setExpirationTime(now() + 600)
        .sign(privateKey),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("the token verifier's fetches from the issuer, traced (ADR 0021)", () => {
  let issuer: Awaited<ReturnType<typeof issuerOnLoopback>>;
  let verifier: TokenVerifier;
  beforeEach(async () => {
    issuer = await issuerOnLoopback();
    // Every token verified from scratch; the key set fetched again after a minute.
    verifier = createTokenVerifier({ issuer: issuer.issuer, audience: AUDIENCE, verifiedTokensCapacity: 0 });
  });
  afterEach(() => issuer.close());

  it('with tracing off, sends no trace context', async () => {
    await verifier.verify(await issuer.token());
    expect(issuer.received.map((r) => r.path)).to.deep.equal(['/.well-known/openid-configuration', '/jwks']);
    for (const { headers } of issuer.received) expect(headers).to.not.have.any.keys('traceparent', 'tracestate');
  });

  describe('with an OTLP endpoint', () => {
    let receiver: ExportingReceiver;
    let tracing: Tracing;
    beforeEach(async () => {
      receiver = await exportToOtlpReceiver();
      tracing = await startTracing('service-like');
    });
    afterEach(async () => {
      sinon.restore();
      await tracing.shutdown();
      await receiver.restore();
    });

    it('makes the discovery and key set reads a request waits for client spans of its trace, and sends their traceparent', async () => {
      const token = await issuer.token();
      await inSpan('GET /api/things', { kind: SpanKind.SERVER }, () => verifier.verify(token));
      await tracing.shutdown();
      const request = receiver.spans.find((span) => span.name === 'GET /api/things')!;
      const clients = receiver.spans.filter((span) => span.kind === KIND.client);
      expect(clients).to.have.length(2);
      for (const client of clients) {
        expect(client).to.include({ name: 'GET', traceId: request.traceId, parentSpanId: request.spanId });
        expect(client.attributes).to.include({ 'http.request.method': 'GET', 'http.response.status_code': 200 });
      }
      expect(issuer.received.map(({ headers }) => headers.traceparent)).to.have.members(
        clients.map((client) => `00-${request.traceId}-${client.spanId}-01`),
      );
    });

    it('keeps the background refresh of an old key set out of the trace of the request that set it going', async () => {
      await inSpan('first request', { kind: SpanKind.SERVER }, async () => verifier.verify(await issuer.token()));
      const realNow = Date.now.bind(Date);
      sinon.stub(Date, 'now').callsFake(() => realNow() + 11 * 60_000); // past the key set's ten minutes
      await inSpan('second request', { kind: SpanKind.SERVER }, async () => verifier.verify(await issuer.token()));
      await eventually('the key set fetched again', 5_000, () => issuer.received.length === 3);
      await tracing.shutdown();

      expect(issuer.received[2]).to.deep.include({ path: '/jwks' });
      expect(issuer.received[2]!.headers).to.not.have.any.keys('traceparent', 'tracestate');
      const second = receiver.spans.find((span) => span.name === 'second request')!;
      expect(receiver.spans.filter((span) => span.traceId === second.traceId)).to.deep.equal([second]);
      expect(receiver.spans.filter((span) => span.kind === KIND.client)).to.have.length(2);
    });
  });
});
