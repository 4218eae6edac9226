import { connectOutcome, rawHttpRequest } from '@platform/test-kit';
import { expect } from 'chai';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { DEFAULT_HOST, DEFAULT_PORT, parseHost, parsePort } from '../src';
import { checkedFetch } from './checked-fetch';

const MAIN = join(import.meta.dirname, '../src/main.ts');

/** main.ts with PORT, and HOST unset unless given. */
function startMain(port: string, host?: string): ChildProcessWithoutNullStreams {
  const { HOST: _unset, ...env } = process.env;
  return spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { ...env, PORT: port, ...(host !== undefined && { HOST: host }) },
  });
}

async function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split('\n')[0]!;
}

describe('parsePort', () => {
  it('defaults to 8081', () => {
    expect(parsePort(undefined)).to.equal(DEFAULT_PORT).and.equal(8081);
    expect(parsePort('')).to.equal(8081);
  });

  it('takes an integer from 0 to 65535', () => {
    expect(['0', '80', '65535'].map(parsePort)).to.deep.equal([0, 80, 65535]);
  });

  it('refuses anything else', () => {
    for (const value of ['65536', '-1', '80.5', '8e3', ' 80', 'eighty', '0x50', '123456']) {
      expect(() => parsePort(value), value).to.throw(/PORT must be an integer from 0 to 65535/);
    }
  });
});

describe('parseHost', () => {
  it('defaults to 127.0.0.1, unset or empty, and takes the address given', () => {
    expect(parseHost(undefined)).to.equal(DEFAULT_HOST).and.equal('127.0.0.1');
    expect(parseHost('')).to.equal('127.0.0.1');
    expect(parseHost('0.0.0.0')).to.equal('0.0.0.0');
  });
});

describe('main', function () {
  this.timeout(60_000);

  it('logs one line with its URL, serves, answers what Node cannot parse as a problem, and exits 0 on SIGTERM', async () => {
    const child = startMain('0');
    try {
      const line = await firstLine(child.stdout);
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
      expect(url, line).to.be.a('string');
      expect((await checkedFetch(`${url}/weatherforecast`)).status).to.equal(200);
      const garbage = await rawHttpRequest(url!, 'NOT HTTP\r\n\r\n');
      expect(garbage.status).to.equal(400);
      expect(garbage.headers['content-type']).to.equal('application/problem+json');
      expect(garbage.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
      expect(JSON.parse(garbage.body)).to.include({ status: 400, code: 'MALFORMED_REQUEST' });
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      expect(await exited).to.deep.equal([0, null]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('listens on 127.0.0.1 only unless HOST says otherwise, and says so', async () => {
    // 127.0.0.2 is this machine too (127.0.0.0/8 is loopback), but only a socket bound to every interface answers
    // there.
    for (const [host, shown, elsewhere] of [
      [undefined, '127.0.0.1', 'ECONNREFUSED'],
      ['0.0.0.0', 'localhost', 'connected'],
    ] as const) {
      const child = startMain('0', host);
      try {
        const line = await firstLine(child.stdout);
        const port = Number(/:(\d+) /.exec(line)?.[1]);
        expect(line).to.equal(
          `sample app listening on http://${shown}:${port} (node ${process.version}; docs at /swagger)${host ? '' : '; on 127.0.0.1 only (set HOST to listen elsewhere)'}`,
        );
        expect(await connectOutcome('127.0.0.1', port)).to.equal('connected');
        expect(await connectOutcome('127.0.0.2', port), String(host)).to.equal(elsewhere);
      } finally {
        child.kill('SIGKILL');
      }
    }
  });

  it('exits 1 with a message when PORT is invalid', async () => {
    const child = startMain('99999');
    const [[code], message] = await Promise.all([
      once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>,
      firstLine(child.stderr),
    ]);
    expect(code).to.equal(1);
    expect(message).to.include('PORT must be an integer from 0 to 65535');
  });
});
