import { expect } from 'chai';
import sinon from 'sinon';
import { BatchedLines, createLogger, type Logger } from '../src';

function sink() {
  const writes: string[] = [];
  return { writes, destination: { write: (text: string) => void writes.push(text) } };
}

describe('BatchedLines', () => {
  it('writes the lines of a burst together, in order, one JSON object per line', async () => {
    const { writes, destination } = sink();
    const logger = createLogger('svc', 'info', [new BatchedLines(destination)]);
    for (let i = 0; i < 50; i++) logger.info('request', { n: i, requestId: `r${i}` });
    expect(writes).to.deep.equal([]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(writes).to.have.length(1);
    const lines = writes[0]!
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((l) => l.n)).to.deep.equal(Array.from({ length: 50 }, (_, i) => i));
    expect(lines[0])
      .to.include({ level: 'info', message: 'request', service: 'svc', requestId: 'r0' })
      .and.to.have.property('timestamp')
      .that.match(/^\d{4}-\d\d-\d\dT/);
  });

  it('writes a batch at once when it reaches 16 KiB, without waiting', () => {
    const { writes, destination } = sink();
    const logger = createLogger('svc', 'info', [new BatchedLines(destination)]);
    for (let i = 0; i < 200 && writes.length === 0; i++) logger.info('request', { padding: 'x'.repeat(200) });
    expect(writes).to.have.length(1);
    expect(writes[0]!.length).to.be.at.least(16 * 1024);
  });
});

describe('createLogger on stdout', () => {
  afterEach(() => sinon.restore());

  /** The same lines, through `logger`: an access line, a child's line with fields, a line of a level that is off. */
  function writeLines(logger: Logger) {
    logger.log({ level: 'info', message: 'request', method: 'GET', status: 200, durationMs: 1.5 });
    logger.child({ requestId: 'r1' }).warn('slow', { n: 1 });
    logger.debug('not written');
    logger.error('failed', { error: 'boom' });
  }

  const withoutTimestamps = (text: string) => text.replace(/,"timestamp":"[^"]+"/g, '');

  it('writes, without winston’s streams, the very lines winston writes: same keys, same order, same levels', async () => {
    const written: string[] = [];
    sinon.stub(process.stdout, 'write').callsFake((text: string | Uint8Array) => written.push(String(text)) > 0);
    writeLines(createLogger('svc', 'info', 'json'));
    const { writes, destination } = sink();
    writeLines(createLogger('svc', 'info', [new BatchedLines(destination)]));
    await new Promise((resolve) => setTimeout(resolve, 60));
    sinon.restore();
    expect(writes).to.have.length(1);
    expect(written.map(withoutTimestamps)).to.deep.equal(writes.map(withoutTimestamps));
    expect(withoutTimestamps(written.join('')).split('\n')[0]).to.equal(
      '{"level":"info","message":"request","method":"GET","status":200,"durationMs":1.5,"service":"svc"}',
    );
  });
});
