import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONFIG, type RunningStockService, startStockService } from '../src';
import { capturingLogger } from './support';

const README = join(import.meta.dirname, '..', '..', '..', '..', 'README.md');

/** The curl commands of the README's "Try it" section, in order, each joined onto one line. */
function tryItCommands(): string[] {
  const section = readFileSync(README, 'utf8').split('## Try it')[1]!.split('\n## ')[0]!;
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line.startsWith('curl '));
}

describe("the README's Try it section", function () {
  this.timeout(30_000);
  let directory: string;
  let service: RunningStockService;
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'stock-readme-'));
    service = await startStockService({ ...DEFAULT_CONFIG, port: 0, databaseUrl: `sqlite:${join(directory, 'stock.db')}`, dbCreateDatabase: 'true' }, { logger: capturingLogger([]) });
  });
  after(async () => {
    await service?.close({ immediate: true });
    rmSync(directory, { recursive: true, force: true });
  });

  it('runs in order on a fresh start, each command answering what the README says', async () => {
    const statuses = [];
    // One at a time, in order, and asynchronously: this process is also the server curl talks to.
    for (const command of tryItCommands()) {
      const local = command.replace(/http:\/\/localhost:8080/g, service.url);
      statuses.push((await promisify(execFile)('bash', ['-c', `${local} -s -o /dev/null -w '%{http_code}'`])).stdout);
    }
    expect(statuses).to.deep.equal(['201', '200', '200', '200', '200', '200', '200', '412', '204']);
  });
});
