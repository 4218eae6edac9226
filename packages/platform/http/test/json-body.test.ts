import Router from '@koa/router';
import { expect } from 'chai';
import { rawHttpRequest } from '@platform/test-kit';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { createHttpApp, jsonObjectBody, problemsFor } from '../src';
import { type Listening, listen, recordingLogger } from './support';

describe('jsonObjectBody', () => {
  let server: Listening;
  const log = recordingLogger();

  before(async () => {
    const http = createHttpApp({ logger: log.logger, toProblem: problemsFor({}) });
    const router = new Router({ prefix: '/api/things' });
    router.post('/', jsonObjectBody('1kb'), (ctx) => {
      ctx.status = 201;
      ctx.body = ctx.request.body;
    });
    http.route(router);
    server = await listen(http.app);
  });
  after(async () => server?.close());

  const post = async (body: string | Buffer | undefined, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.url}/api/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      ...(body !== undefined && { body }),
    });
    const text = await response.text();
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      json: JSON.parse(text) as { readonly code?: string; readonly [field: string]: unknown },
    };
  };
  const codeOf = async (body: string | Buffer | undefined, headers: Record<string, string> = {}) => {
    const { status, json } = await post(body, headers);
    return `${status} ${json.code ?? ''}`.trim();
  };
  /** A request fetch would not send: its own Transfer-Encoding header, chunks written as given. */
  const rawPost = (headers: string, ...chunks: (string | Buffer)[]) =>
    rawHttpRequest(
      server.url,
      `POST /api/things HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nConnection: close\r\n${headers}\r\n`,
      ...chunks,
    );

  it('takes one JSON object in UTF-8, charset=utf-8 or none, with its text as sent', async () => {
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'application/json;charset="UTF-8"',
      'Application/JSON; Charset=utf8',
    ]) {
      expect(await post('{"name":"Zoë 🚀","n":[1,{"x":null}]}', { 'content-type': type }), type).to.deep.equal({
        status: 201,
        type: 'application/json; charset=utf-8',
        json: { name: 'Zoë 🚀', n: [1, { x: null }] },
      });
    }
  });

  it('answers 415 for a body declared in another charset, before reading it', async () => {
    for (const charset of [
      'latin1',
      'iso-8859-1',
      'utf-16',
      'UTF-16LE',
      'us-ascii',
      'bogus',
      '',
      '""',
      'latin1; charset=utf-8',
      'utf-8;charset=latin1',
    ]) {
      expect(await codeOf('{"a":1}', { 'content-type': `application/json; charset=${charset}` }), charset).to.equal(
        '415 UNSUPPORTED_MEDIA_TYPE',
      );
    }
    expect(await codeOf('{"a":1}', { 'content-type': 'application/json; charset' })).to.equal(
      '415 UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('answers 400 for bytes that are not UTF-8, rather than reading them as something else', async () => {
    const bodies = [
      Buffer.from([...Buffer.from('{"a":"'), 0xe9, ...Buffer.from('"}')]), // Latin-1 é
      Buffer.from([...Buffer.from('{"a":"'), 0xed, 0xa0, 0x80, ...Buffer.from('"}')]), // a surrogate, CESU-8 style
      Buffer.from([...Buffer.from('{"a":"'), 0xc0, 0xaf, ...Buffer.from('"}')]), // an overlong "/"
      Buffer.from([...Buffer.from('{"a":"'), 0xe2, 0x82, ...Buffer.from('"}')]), // a truncated sequence
    ];
    for (const body of bodies) {
      const { status, json } = await post(body);
      expect(status, body.toString('hex')).to.equal(400);
      expect(json, body.toString('hex')).to.include({
        code: 'MALFORMED_JSON',
        detail: 'The request body is not valid UTF-8.',
      });
    }
  });

  it('refuses a property given twice in one object, naming it, however its name is escaped and however deep', async () => {
    const errorsOf = async (body: string) => {
      const { status, json } = await post(body);
      expect(status, body).to.equal(400);
      expect(json.code, body).to.equal('VALIDATION_FAILED');
      return json.errors;
    };
    expect(await errorsOf('{"price":1,"price":2}')).to.deep.equal({ price: ['is given more than once'] });
    expect(await errorsOf('{"name":"a", "\\u006eame" : "b","x":{"y":1,"y":1}}')).to.deep.equal({
      name: ['is given more than once'],
      'x.y': ['is given more than once'],
    });
    expect(await errorsOf('{"a":[0,{"b":{},"b":[]}]}')).to.deep.equal({ 'a[1].b': ['is given more than once'] });
    expect(await post('{"a":{"x":1},"b":{"x":"x"},"c":["x","x"],"x":"a,\\"x\\":"}')).to.include({ status: 201 });
  });

  it('keeps __proto__ and constructor as plain properties, and pollutes nothing', async () => {
    const { status, json } = await post(
      '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
    );
    expect(status).to.equal(201);
    expect(Object.keys(json)).to.deep.equal(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    expect(Object.prototype).not.to.have.property('polluted');
  });

  it('answers BODY_REQUIRED for a body that is empty, however it is framed or encoded', async () => {
    expect(await codeOf(undefined)).to.equal('400 BODY_REQUIRED');
    expect(await codeOf('')).to.equal('400 BODY_REQUIRED');
    expect(await codeOf(gzipSync(''), { 'content-encoding': 'gzip' })).to.equal('400 BODY_REQUIRED');
    const chunkedEmpty = await rawPost('Transfer-Encoding: chunked\r\n', '0\r\n\r\n');
    expect(chunkedEmpty.status).to.equal(400);
    expect(JSON.parse(chunkedEmpty.body)).to.include({ code: 'BODY_REQUIRED' });
  });

  it('reads gzip, deflate, br and identity in any case, and refuses other codings with 415 and corrupt ones with 400', async () => {
    const body = '{"coded":true}';
    for (const [coding, encoded] of [
      ['GZIP', gzipSync(body)],
      ['Gzip', gzipSync(body)],
      ['DEFLATE', deflateSync(body)],
      ['Br', brotliCompressSync(body)],
      ['Identity', Buffer.from(body)],
      [' gzip ', gzipSync(body)],
    ] as const) {
      expect(await post(encoded, { 'content-encoding': coding }), coding).to.deep.include({
        status: 201,
        json: { coded: true },
      });
    }
    for (const coding of ['zstd', 'gzip, gzip', 'x-gzip', 'compress']) {
      expect(await codeOf(gzipSync(body), { 'content-encoding': coding }), coding).to.equal(
        '415 UNSUPPORTED_MEDIA_TYPE',
      );
    }
    expect(await codeOf('not gzip at all', { 'content-encoding': 'gzip' })).to.equal('400 MALFORMED_JSON');
    expect(await codeOf(gzipSync(body).subarray(0, 12), { 'content-encoding': 'gzip' })).to.equal('400 MALFORMED_JSON');
    const gzipAsDeflate = await codeOf(gzipSync(body), { 'content-encoding': 'deflate' });
    expect(gzipAsDeflate, 'gzip sent as deflate').to.equal('400 MALFORMED_JSON');
  });

  it('applies the limit to the decoded body, so a small gzip bomb is refused with 413', async () => {
    const big = JSON.stringify({ a: 'x'.repeat(2000) });
    expect(await codeOf(big)).to.equal('413 PAYLOAD_TOO_LARGE');
    for (const [coding, encoded] of [
      ['gzip', gzipSync(big)],
      ['deflate', deflateSync(big)],
      ['br', brotliCompressSync(big)],
    ] as const) {
      expect(encoded.length, coding).to.be.below(1024);
      expect(await codeOf(encoded, { 'content-encoding': coding }), coding).to.equal('413 PAYLOAD_TOO_LARGE');
    }
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    expect(await codeOf(bomb, { 'content-encoding': 'gzip' })).to.equal('413 PAYLOAD_TOO_LARGE');
    const chunked = await rawPost('Transfer-Encoding: chunked\r\n', `800\r\n${' '.repeat(0x800)}\r\n`, '0\r\n\r\n');
    expect(chunked.status).to.equal(413);
  });

  it('applies the limit to the body as sent too, so padding that decodes to nothing is refused with 413', async () => {
    const padded = Buffer.concat([gzipSync('{"a":1}'), ...Array.from({ length: 100 }, () => gzipSync(''))]);
    expect(padded.length).to.be.above(1024);
    expect(await codeOf(padded, { 'content-encoding': 'gzip' })).to.equal('413 PAYLOAD_TOO_LARGE');
    const headers = 'Transfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n';
    const unannounced = await rawPost(headers, `${padded.length.toString(16)}\r\n`, padded, '\r\n0\r\n\r\n');
    expect(unannounced.status).to.equal(413);
  });

  it('reads a chunked body, and refuses any transfer coding but chunked with 415', async () => {
    const chunked = await rawPost('Transfer-Encoding: chunked\r\n', '5\r\n{"a":\r\n', '2\r\n1}\r\n', '0\r\n\r\n');
    expect(chunked.status).to.equal(201);
    expect(JSON.parse(chunked.body)).to.deep.equal({ a: 1 });
    const gzipped = gzipSync('{"a":1}');
    for (const codings of ['gzip, chunked', 'Identity, chunked', 'deflate,chunked']) {
      const response = await rawPost(
        `Transfer-Encoding: ${codings}\r\n`,
        `${gzipped.length.toString(16)}\r\n`,
        gzipped,
        '\r\n0\r\n\r\n',
      );
      expect(response.status, codings).to.be.within(400, 499);
      expect(response.headers['content-type'], codings).to.equal('application/problem+json');
    }
    const gzipThenChunked = await rawPost(
      'Transfer-Encoding: gzip, chunked\r\n',
      `${gzipped.length.toString(16)}\r\n`,
      gzipped,
      '\r\n0\r\n\r\n',
    );
    expect(gzipThenChunked.status).to.equal(415);
    expect(JSON.parse(gzipThenChunked.body)).to.include({ code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('logs none of these as an unexpected error', () => {
    expect(log.lines.filter((line) => line.level === 'error')).to.deep.equal([]);
  });
});
