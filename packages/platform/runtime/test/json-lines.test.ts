import { expect } from 'chai';
import { BatchedLines, createLogger } from '../src';

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
