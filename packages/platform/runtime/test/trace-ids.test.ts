import { inSpan, startTracing, traceFields, type Tracing } from '../src';
import { exportingTo } from '@platform/test-kit';
import { expect } from 'chai';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger } from '../src';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write: (chunk, _encoding, done) => done(void lines.push(JSON.parse(String(chunk)) as Record<string, unknown>)),
  });
  return { lines, logger: createLogger('svc', 'info', [new winston.transports.Stream({ stream: sink })]) };
}

const flushed = () => new Promise((resolve) => setImmediate(resolve));

describe('Logger with tracing', () => {
  let restoreEnvironment: () => void;
  // A collector that takes every export and keeps nothing: what is exported is the telemetry package's test.
  const collector = createServer((request, response) => request.resume().on('end', () => response.end('{}')));
  let tracing: Tracing;

  before(async () => {
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    restoreEnvironment = exportingTo(`http://127.0.0.1:${(collector.address() as AddressInfo).port}`);
    tracing = await startTracing('svc');
  });

  after(async () => {
    await tracing.shutdown();
    restoreEnvironment();
    await new Promise((resolve) => collector.close(resolve));
  });

  it('writes the traceId and spanId of the span a line is written in, through every way of logging', async () => {
    const { lines, logger } = capture();
    const ids = await inSpan('work', {}, async () => {
      logger.info('inside');
      logger.child({ requestId: 'r1' }).warn('inside, from a child');
      logger.log({ level: 'info', message: 'an entry inside' });
      return traceFields();
    });
    logger.info('outside');
    logger.log({ level: 'info', message: 'an entry outside' });
    await flushed();
    expect(ids?.traceId).to.match(/^[\da-f]{32}$/);
    expect(lines.slice(0, 3).map((line) => [line.message, line.traceId, line.spanId])).to.deep.equal([
      ['inside', ids!.traceId, ids!.spanId],
      ['inside, from a child', ids!.traceId, ids!.spanId],
      ['an entry inside', ids!.traceId, ids!.spanId],
    ]);
    for (const line of lines.slice(3)) expect(line).to.not.have.any.keys('traceId', 'spanId');
  });

  it('leaves the fields a line gives its own, a traceId included', async () => {
    const { lines, logger } = capture();
    await inSpan('work', {}, async () => logger.info('given', { traceId: 'mine' }));
    await flushed();
    expect(lines[0]).to.include({ traceId: 'mine' });
  });
});
