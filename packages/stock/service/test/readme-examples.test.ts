import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONFIG, type RunningStockService, startStockService } from '../src';
import { capturingLogger } from './support';
import { OPENAPI_FILE } from './workspace-files';

const README = join(import.meta.dirname, '..', '..', '..', '..', 'README.md');

/** The sections a newcomer follows against one fresh stock service, in the order the README gives them. */
const SECTIONS = ['Try it', 'Reservations and the stock ledger'];

/** The first shell block of a README section. */
function shellBlock(section: string): string {
  const text = readFileSync(README, 'utf8').split(`\n## ${section}\n`)[1]!.split('\n## ')[0]!;
  return /```sh\n([\s\S]*?)```/.exec(text)![1]!;
}

/**
 * What the block's comments say an answer contains: each run of JSON members
 * written out in full (`"quantityInStock":10,"reservedQuantity":2`), skipping
 * those elided with "…".
 */
function promisedFragments(block: string): string[] {
  const member = String.raw`"[A-Za-z]+":(?:"[^"…]*"|-?\d+(?:\.\d+)?|true|false|null)`;
  return block
    .split('\n')
    .map((line) => /(?:^|\s)# (.*)$/.exec(line)?.[1] ?? '')
    .flatMap((comment) => comment.match(new RegExp(`${member}(?:,${member})*`, 'g')) ?? []);
}

/** Every curl prints its status on stderr, one line each, and keeps stdout for what the README shows. */
const RECORD_STATUSES = `curl() { command curl -sS -w '%{stderr}%{http_code}\\n' "$@"; }\n`;

describe("the README's stock examples", function () {
  this.timeout(60_000);
  let directory: string;
  let service: RunningStockService;
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'stock-readme-'));
    service = await startStockService(
      { ...DEFAULT_CONFIG, port: 0, databaseUrl: `sqlite:${join(directory, 'stock.db')}`, dbCreateDatabase: 'true', openApiFile: OPENAPI_FILE },
      { logger: capturingLogger([]) },
    );
  });
  after(async () => {
    await service?.close({ immediate: true });
    rmSync(directory, { recursive: true, force: true });
  });

  it('run in order on a fresh start, section after section, each command answering what the README says', async () => {
    const blocks = SECTIONS.map(shellBlock);
    const script = RECORD_STATUSES + blocks.join('\n').replaceAll('http://localhost:8080', service.url);
    // Asynchronously: this process is also the server curl talks to.
    const { stdout, stderr } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { timeout: 50_000 });

    expect(stderr.split('\n').filter(Boolean)).to.deep.equal([
      // Try it: create, list, page, read, adjust, read, PUT, stale PUT, create another, delete it
      ...['201', '200', '200', '200', '200', '200', '200', '412', '201', '204'],
      // Reservations: hold, read, the same reference again, commit, read, the ledger
      ...['201', '200', '200', '200', '200', '200'],
    ]);
    const fragments = blocks.flatMap(promisedFragments);
    expect(fragments).to.include.members(['"quantityInStock":10,"reservedQuantity":2,"availableQuantity":8', '"status":"committed"']);
    for (const fragment of fragments) expect(stdout, `the README promises ${fragment}`).to.contain(fragment);
    // The last command prints the ledger, a JSON array, right after the product before it (curl adds no newline).
    const ledger = JSON.parse(stdout.slice(stdout.lastIndexOf('[{'))) as { kind: string }[];
    expect(ledger.map((movement) => movement.kind)).to.deep.equal(['created', 'adjusted', 'updated', 'reserved', 'committed']);
  });
});
