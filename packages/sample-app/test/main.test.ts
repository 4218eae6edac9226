import { rawHttpRequest } from '@platform/test-kit';
import { expect } from 'chai';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { DEFAULT_PORT, parsePort } from '../src';

const MAIN = join(import.meta.dirname, '../src/main.ts');

function startMain(port: string): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', 'tsx', MAIN], { env: { ...process.env, PORT: port } });
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

describe('main', () => {
  it('logs one line with its URL, serves, answers what Node cannot parse as a problem, and exits 0 on SIGTERM', async () => {
    const child = startMain('0');
    try {
      const line = await firstLine(child.stdout);
      const url = /(http:\/\/localhost:\d+)/.exec(line)?.[1];
      expect(url, line).to.be.a('string');
      expect((await fetch(`${url}/weatherforecast`)).status).to.equal(200);
      const garbage = await rawHttpRequest(url!.replace('localhost', '127.0.0.1'), 'NOT HTTP\r\n\r\n');
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

  it('exits 1 with a message when PORT is invalid', async () => {
    const child = startMain('99999');
    const [[code], message] = await Promise.all([once(child, 'exit'), firstLine(child.stderr)]);
    expect(code).to.equal(1);
    expect(message).to.include('PORT must be an integer from 0 to 65535');
  });
});
