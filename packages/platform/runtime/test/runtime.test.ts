import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import sinon from 'sinon';
import winston from 'winston';
import { createLogger, every, integer, oneOf, readSettings, text } from '../src';

const SPEC = { port: integer('PORT', 8080, 0, 65535), name: text('NAME', 'default'), level: oneOf('LEVEL', 'info', ['info', 'warn'] as const) };

describe('readSettings', () => {
  let directory: string;
  beforeEach(() => (directory = mkdtempSync(join(tmpdir(), 'settings-'))));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));
  const source = (env: Record<string, string> = {}) => ({ env, cwd: directory, file: { variable: 'APP_CONFIG', fallback: 'app.json' } });

  it('takes the defaults, then the file, then the environment', () => {
    expect(readSettings(SPEC, source())).to.deep.equal({ port: 8080, name: 'default', level: 'info' });
    writeFileSync(join(directory, 'app.json'), JSON.stringify({ port: 9000, name: 'from file' }));
    expect(readSettings(SPEC, source())).to.deep.equal({ port: 9000, name: 'from file', level: 'info' });
    expect(readSettings(SPEC, source({ PORT: '9100', LEVEL: 'warn' }))).to.deep.equal({ port: 9100, name: 'from file', level: 'warn' });
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
    const sink = new Writable({ write: (chunk, _encoding, done) => done(void lines.push(JSON.parse(String(chunk)))) });
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

  it('never hands winston a line of a level it does not write', () => {
    const { transport, logger } = capture('warn');
    const format = sinon.spy(transport, 'log');
    logger.info('dropped');
    logger.child({ a: 1 }).debug('dropped too');
    sinon.assert.notCalled(format);
    expect(logger.isEnabled('info')).to.equal(false);
    expect(logger.isEnabled('error')).to.equal(true);
  });
});

describe('every', () => {
  it('runs the task again and again, one run at a time, logging a failure once and its recovery once', async () => {
    const { lines, logger } = (() => {
      const lines: string[] = [];
      const logger = createLogger('svc', 'info', [new winston.transports.Stream({ stream: new Writable({ write: (c, _e, d) => d(void lines.push(JSON.parse(String(c)).message as string)) }) })]);
      return { lines, logger };
    })();
    const outcomes = ['fail', 'fail', 'ok', 'ok'];
    let runs = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    const periodic = every(5, 'the task', async () => {
      runs += 1;
      maxConcurrent = Math.max(maxConcurrent, ++concurrent);
      await new Promise((resolve) => setTimeout(resolve, 10));
      concurrent -= 1;
      if (outcomes.shift() === 'fail') throw new Error('down');
    }, logger);
    while (runs < 4) await new Promise((resolve) => setTimeout(resolve, 5));
    await periodic.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(maxConcurrent).to.equal(1);
    expect(lines).to.deep.equal(['the task failed; it will be tried again', 'the task works again']);
  });
});
