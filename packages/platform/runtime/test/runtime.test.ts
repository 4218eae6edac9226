import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import sinon from 'sinon';
import winston from 'winston';
import {
  createLogger,
  displayUrl,
  every,
  integer,
  isLoopback,
  jsonLine,
  listenHost,
  Logger,
  oneOf,
  openAccessNote,
  readSettings,
  text,
} from '../src';

const SPEC = {
  port: integer('PORT', 8080, 0, 65535),
  name: text('NAME', 'default'),
  level: oneOf('LEVEL', 'info', ['info', 'warn'] as const),
};

describe('readSettings', () => {
  let directory: string;
  beforeEach(() => (directory = mkdtempSync(join(tmpdir(), 'settings-'))));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));
  const source = (env: Record<string, string> = {}) => ({
    env,
    cwd: directory,
    file: { variable: 'APP_CONFIG', fallback: 'app.json' },
  });

  it('takes the defaults, then the file, then the environment', () => {
    expect(readSettings(SPEC, source())).to.deep.equal({ port: 8080, name: 'default', level: 'info' });
    writeFileSync(join(directory, 'app.json'), JSON.stringify({ port: 9000, name: 'from file' }));
    expect(readSettings(SPEC, source())).to.deep.equal({ port: 9000, name: 'from file', level: 'info' });
    expect(readSettings(SPEC, source({ PORT: '9100', LEVEL: 'warn' }))).to.deep.equal({
      port: 9100,
      name: 'from file',
      level: 'warn',
    });
  });

  it('fails naming the setting for a value it cannot read, and for a named file that is missing', () => {
    expect(() => readSettings(SPEC, source({ PORT: '80.5' }))).to.throw(/PORT must be an integer from 0 to 65535/);
    expect(() => readSettings(SPEC, source({ LEVEL: 'INFO' }))).to.throw(/LEVEL must be one of info, warn/);
    expect(() => readSettings(SPEC, source({ APP_CONFIG: 'absent.json' }))).to.throw(/does not exist/);
  });
});

describe('Logger', () => {
  function capture(level: 'info' | 'warn') {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write: (chunk, _encoding, done) => done(void lines.push(JSON.parse(String(chunk)) as Record<string, unknown>)),
    });
    const transport = new winston.transports.Stream({ stream: sink });
    return { lines, transport, logger: createLogger('svc', level, [transport]) };
  }

  it('writes JSON lines with the service, the level, the message and the fields, and child fields on every line', async () => {
    const { lines, logger } = capture('info');
    logger.child({ requestId: 'r1' }).info('hello', { n: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({ service: 'svc', level: 'info', message: 'hello', requestId: 'r1', n: 1 });
  });

  it('hands winston each line as one object, an entry as it is: none copied twice or scanned for printf', async () => {
    const { lines, transport } = capture('info');
    const defaultMeta = { service: 'svc' };
    const inner = winston.createLogger({ level: 'info', format: jsonLine(), defaultMeta, transports: [transport] });
    const log = sinon.spy(inner, 'log');
    const logger = new Logger(inner);
    logger.info('hello %s', { n: 1 });
    const entry = { level: 'info', message: 'request', status: 200 } as const;
    logger.log(entry);
    logger.child({ requestId: 'r1' }).log({ level: 'info', message: 'request', status: 201 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(log.args.map((args) => args.length)).to.deep.equal([1, 1, 1]);
    expect(log.secondCall.args[0]).to.equal(entry);
    expect(lines).to.have.length(3);
    const [hello, request] = lines.map(({ timestamp: _, ...line }) => line);
    expect(hello).to.deep.equal({ service: 'svc', level: 'info', message: 'hello %s', n: 1 });
    expect(request).to.deep.equal({ service: 'svc', level: 'info', message: 'request', status: 200 });
    expect(lines.every((line) => typeof line.timestamp === 'string')).to.equal(true);
    expect(lines[2]).to.include({ service: 'svc', requestId: 'r1', status: 201 });
  });

  it('never hands winston a line of a level it does not write, so nothing formats it', () => {
    // winston itself drops a disabled level only after building the entry and running the format; the Logger asks
    // first.
    const format = jsonLine();
    const transform = sinon.spy(format, 'transform');
    const inner = winston.createLogger({
      level: 'warn',
      format,
      transports: [new winston.transports.Stream({ stream: new Writable({ write: (_c, _e, done) => done() }) })],
    });
    const log = sinon.spy(inner, 'log');
    const logger = new Logger(inner);
    logger.info('dropped');
    logger.child({ a: 1 }).debug('dropped too');
    sinon.assert.notCalled(log);
    sinon.assert.notCalled(transform);
    logger.warn('written');
    sinon.assert.calledOnce(log);
    expect(logger.isEnabled('info')).to.equal(false);
    expect(logger.isEnabled('error')).to.equal(true);
  });
});

describe('displayUrl', () => {
  it('names the port the service listens on, 80 included, so the logged URL is the one to open', () => {
    expect(displayUrl('', 8080)).to.equal('http://localhost:8080');
    expect(displayUrl('', 80)).to.equal('http://localhost:80');
    expect(displayUrl('0.0.0.0', 443)).to.equal('http://localhost:443');
    for (const port of [80, 443, 8080, 65535]) {
      const url = new URL(displayUrl('', port));
      // http: its default port is 80; every other port must be in the URL, 443 too (it is https' default, not http's).
      expect(url.protocol).to.equal('http:');
      expect(Number(url.port || 80), String(port)).to.equal(port);
    }
  });

  it('says localhost for every interface, and brackets an IPv6 address', () => {
    expect(displayUrl('::', 8080)).to.equal('http://localhost:8080');
    expect(displayUrl('::1', 80)).to.equal('http://[::1]:80');
    expect(displayUrl('127.0.0.1', 8080)).to.equal('http://127.0.0.1:8080');
  });
});

describe('listenHost', () => {
  it('keeps HOST when it is set; without it binds every interface with tokens on, and loopback only with them off', () => {
    expect(listenHost({ host: '', authIssuer: '' })).to.deep.equal({ host: '127.0.0.1', authIssuer: '' });
    expect(listenHost({ host: '', authIssuer: 'https://id.example.com' }).host).to.equal('');
    expect(listenHost({ host: '0.0.0.0', authIssuer: '' }).host).to.equal('0.0.0.0');
    expect(listenHost({ host: '10.0.0.5', authIssuer: 'https://id.example.com' }).host).to.equal('10.0.0.5');
  });
});

describe('openAccessNote', () => {
  it('says nothing with tokens on; with them off, that only this machine can call, or that every caller that reaches the address may do everything', () => {
    expect(openAccessNote({ host: '', authIssuer: 'https://id.example.com' })).to.equal(undefined);
    expect(openAccessNote({ host: '127.0.0.1', authIssuer: '' })).to.equal(
      'tokens off: listening on 127.0.0.1 only (set HOST to listen elsewhere)',
    );
    expect(openAccessNote({ host: '0.0.0.0', authIssuer: '' })).to.equal(
      'tokens off: every caller that reaches 0.0.0.0 may do everything (set AUTH_ISSUER to check tokens)',
    );
    expect(openAccessNote({ host: '', authIssuer: '' })).to.match(/every caller that reaches any interface/);
  });

  it('counts 127.0.0.0/8, ::1 and localhost as loopback, and nothing else', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', 'localhost'].filter(isLoopback)).to.have.length(4);
    expect(
      ['', '0.0.0.0', '::', '10.0.0.5', '127.0.0.1.example.com', 'localhost.example.com'].filter(isLoopback),
    ).to.deep.equal([]);
  });
});

describe('every', () => {
  it('runs the task again and again, one run at a time, logging a failure once and its recovery once', async () => {
    const { lines, logger } = (() => {
      const lines: string[] = [];
      const logger = createLogger('svc', 'info', [
        new winston.transports.Stream({
          stream: new Writable({
            write: (c, _e, d) => d(void lines.push((JSON.parse(String(c)) as { message: string }).message)),
          }),
        }),
      ]);
      return { lines, logger };
    })();
    const outcomes = ['fail', 'fail', 'ok', 'ok'];
    let runs = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    const periodic = every(
      5,
      'the task',
      async () => {
        runs += 1;
        maxConcurrent = Math.max(maxConcurrent, ++concurrent);
        await new Promise((resolve) => setTimeout(resolve, 10));
        concurrent -= 1;
        if (outcomes.shift() === 'fail') throw new Error('down');
      },
      logger,
    );
    while (runs < 4) await new Promise((resolve) => setTimeout(resolve, 5));
    await periodic.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(maxConcurrent).to.equal(1);
    expect(lines).to.deep.equal(['the task failed; it will be tried again', 'the task works again']);
  });
});
