import { Apis } from '@commerce/contracts';
import * as platformKoa from '@platform/http';
import { type ServiceProcess, startServiceProcess } from '@platform/test-kit';
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_CONFIG, type RunningStockService, startStockService } from '../src';
import { capturingLogger } from './support';
import { OPENAPI_FILE } from '@stock/http-koa/testing';
import { checkedFetch } from './checked-fetch';

// The examples of the docs pages, run as a newcomer would: in order, on a fresh start. The order walkthroughs
// (docs/sales-api.md, the README's whole system) run in packages/system-tests, which starts the services and RabbitMQ
// they need.
const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const STOCK_API = 'docs/stock-api.md';

/** The shell blocks of a section of a page (a path from the workspace's root), in order. */
/** The fenced blocks of `language` anywhere on `page`, in order. */
function fencedBlocks(page: string, language: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  return [...text.matchAll(new RegExp(`^\`\`\`${language}\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((match) => match[1]!);
}

function shellBlocks(page: string, section: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8').split(`\n## ${section}\n`)[1]!.split('\n## ')[0]!;
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/**
 * What the block's comments say an answer contains: each run of JSON members
 * written out in full (`"quantityInStock":10,"reservedQuantity":2`), skipping
 * those elided with "…" and comments that give an example ("e.g.") rather than a promise.
 */
function promisedFragments(block: string): string[] {
  const member = String.raw`"[A-Za-z_]+":(?:"[^"…]*"|-?\d+(?:\.\d+)?|true|false|null)`;
  return block
    .split('\n')
    .map((line) => /(?:^|\s)# (.*)$/.exec(line)?.[1] ?? '')
    .filter((comment) => !comment.includes('e.g.'))
    .flatMap((comment) => comment.match(new RegExp(`${member}(?:,${member})*`, 'g')) ?? []);
}

/** Every curl prints its status on stderr, one line each, and keeps stdout for what the page shows. */
const RECORD_STATUSES = `curl() { command curl -sS -w '%{stderr}%{http_code}\\n' "$@"; }\n`;

/**
 * Runs a block as bash would from a terminal, with each curl's status recorded; asynchronously, as this process may be
 * the server.
 */
async function runBlock(script: string, cwd = ROOT): Promise<{ stdout: string; statuses: string[] }> {
  const { stdout, stderr } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', RECORD_STATUSES + script], {
    cwd,
    timeout: 50_000,
  });
  return { stdout, statuses: stderr.split('\n').filter(Boolean) };
}

/**
 * A block that starts a service ends with that command (`npx … start:…`, with its environment): the part before it, and
 * its environment.
 */
function splitAtStart(block: string): { before: string; env: Record<string, string> } {
  const lines = block.split('\n');
  const start = lines.findIndex((line) => /\bnpx -y pnpm@[\d.]+ start:/.test(line));
  expect(start, block).to.be.at.least(0);
  const env = Object.fromEntries(
    [...lines[start]!.matchAll(/(?:^|\s)([A-Z_]+)=(\S+)(?=\s)/g)].map((m) => [m[1]!, m[2]!]),
  );
  return { before: lines.slice(0, start).join('\n'), env };
}

describe("the stock API page's examples", function () {
  this.timeout(60_000);
  let directory: string;
  let service: RunningStockService;
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'stock-readme-'));
    service = await startStockService(
      {
        ...DEFAULT_CONFIG,
        port: 0,
        databaseUrl: `sqlite:${join(directory, 'stock.db')}`,
        dbCreateDatabase: 'true',
        openApiFile: OPENAPI_FILE,
      },
      { logger: capturingLogger([]) },
    );
  });
  after(async () => {
    await service?.close({ immediate: true });
    rmSync(directory, { recursive: true, force: true });
  });

  it('run in order on a fresh start, section after section, each command answering what the page says', async () => {
    const sections = ['Try it', 'Reservations and the stock ledger'];
    const blocks = sections.map((section) => shellBlocks(STOCK_API, section)[0]!);
    const { stdout, statuses } = await runBlock(blocks.join('\n').replaceAll('http://localhost:8080', service.url));

    expect(statuses).to.deep.equal([
      // Try it: create, list, page, read, adjust, read, PUT, stale PUT, create another, delete it
      ...['201', '200', '200', '200', '200', '200', '200', '412', '201', '204'],
      // Reservations: hold, read, the same reference again, commit, read, the ledger
      ...['201', '200', '200', '200', '200', '200'],
    ]);
    const fragments = blocks.flatMap(promisedFragments);
    expect(fragments).to.include.members([
      '"quantityInStock":10,"reservedQuantity":2,"availableQuantity":8',
      '"status":"committed"',
    ]);
    for (const fragment of fragments) expect(stdout, `the page promises ${fragment}`).to.contain(fragment);
    // The last command prints the ledger, a JSON array, right after the product before it (curl adds no newline).
    const ledger = JSON.parse(stdout.slice(stdout.lastIndexOf('[{'))) as { kind: string }[];
    expect(ledger.map((movement) => movement.kind)).to.deep.equal([
      'created',
      'adjusted',
      'updated',
      'reserved',
      'committed',
    ]);

    // Then stock by location goes on with the same lamp.
    const [byLocation] = shellBlocks(STOCK_API, 'Stock by location');
    const after = await runBlock(byLocation!.replaceAll('http://localhost:8080', service.url));
    expect(after.statuses).to.deep.equal([
      // a location, the list, 20 at north, the levels, a split hold and its commit
      ...['201', '200', '200', '200', '201', '200'],
      // a transfer, the levels, the transfers in transit, its receipt
      ...['201', '200', '200', '200'],
      // a PUT refused, the settings, the low products
      ...['409', '200', '200'],
      // a backordered hold, its refused commit, the stock that fills it, the commit
      ...['201', '409', '200', '200'],
    ]);
    const promised = promisedFragments(byLocation!);
    expect(promised).to.include.members([
      '"locationId":1,"quantity":8',
      '"locationId":2,"quantity":2',
      '"backorderedQuantity":7',
      '"code":"BACKORDER_NOT_FILLED"',
    ]);
    for (const fragment of promised) expect(after.stdout, `the page promises ${fragment}`).to.contain(fragment);

    // Then SKUs and search, on the lamp and three more products.
    const [search] = shellBlocks(STOCK_API, 'Search');
    const searched = await runBlock(search!.replaceAll('http://localhost:8080', service.url));
    expect(searched.statuses).to.deep.equal([
      // three products, the SKU taken, the SKU looked up
      ...['201', '201', '201', '409', '200'],
      // three searches, the first page (its headers), the next page, the cursor misused
      ...['200', '200', '200', '200', '200', '400'],
    ]);
    for (const fragment of promisedFragments(search!))
      expect(searched.stdout, `the page promises ${fragment}`).to.contain(fragment);
    // Each JSON array the block printed, in order: the SKU lookup, three searches, the next page, the problem.
    const arrays = [...searched.stdout.matchAll(/\[\{.*?\}\](?=\{|\[|\/|$)/gs)].map((match) =>
      (JSON.parse(match[0]) as { id: number }[]).map((product) => product.id),
    );
    expect(arrays).to.deep.equal([[3], [3, 1, 4], [4], [3, 4], [1, 3]]);
    expect(searched.stdout).to.match(/\/api\/products\?q=lamp&sort=price&limit=2&cursor=[\w-]+\n/);
    expect(searched.stdout).to.contain('"cursor":["belongs to another search');

    // Then imports and exports, with the lamp and the north location there.
    const [imports] = shellBlocks(STOCK_API, 'Import and export');
    const loaded = await runBlock(imports!.replaceAll('http://localhost:8080', service.url));
    // three imports, two exports, then an export piped into an import
    expect(loaded.statuses).to.deep.equal(['200', '200', '200', '200', '200', '200', '200']);
    const counts = promisedFragments(imports!);
    expect(counts).to.include.members(['"created":0,"updated":0', '"row":1']);
    for (const fragment of counts) expect(loaded.stdout, `the page promises ${fragment}`).to.contain(fragment);
    expect(loaded.stdout).to.contain('\n6,MUG-1,Mug,"Stoneware, 350 ml",8.50,default,40,0,5\n');
  });

  it("the README's catalogue import and export, against the same service", async () => {
    const [block] = shellBlocks('README.md', 'Load and export a catalogue');
    const { stdout, statuses } = await runBlock(block!.replaceAll('http://localhost:8080', service.url));
    expect(statuses).to.deep.equal(['200', '200']);
    for (const fragment of promisedFragments(block!)) expect(stdout).to.contain(fragment);
    expect(stdout).to.contain('id,sku,name,description,price,locationCode,onHand,backorderLimit,lowStockThreshold\n');
    expect(stdout).to.match(/\n\d+,DESK-1,Standing desk,"Oak, 160 cm",349\.00,default,4,0,0\n/);
  });

  it('show the problem an invalid body gets, as the service answers it', async () => {
    const [sample] = fencedBlocks(STOCK_API, 'json');
    const shown = JSON.parse(sample!) as Record<string, unknown>;
    const answer = await checkedFetch(`${service.url}/api/products`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ price: 1.234, quantityInStock: 1 }),
    });
    expect(answer.headers.get('content-type')).to.equal('application/problem+json');
    expect(await answer.json()).to.deep.equal(shown);
  });
});

describe("the identity page's code sample", () => {
  it('calls only what @platform/http exports, with an audience and a scope of the security contract', () => {
    const [sample] = fencedBlocks('docs/identity.md', 'ts');
    const called = [...sample!.matchAll(/(?<![.\w])([a-zA-Z]\w*)\(/g)].map((match) => match[1]!);
    expect(called).to.include.members(['createTokenVerifier', 'authenticate', 'requireScope']);
    for (const name of called) expect(platformKoa, name).to.have.property(name).that.is.a('function');
    const [audience] = /urn:commerce:\w+/.exec(sample!) ?? [];
    expect(audience).to.equal(Apis.stock.audience);
    const scopes = [...sample!.matchAll(/requireScope\('([^']+)'\)/g)].map((match) => match[1]!);
    expect(scopes).to.not.be.empty;
    for (const scope of scopes) expect(Object.keys(Apis.stock.scopes)).to.include(scope);
  });
});

describe("the sample app and identity pages' examples", function () {
  this.timeout(60_000);
  let directory: string;
  let running: ServiceProcess | undefined;
  beforeEach(() => (directory = mkdtempSync(join(tmpdir(), 'readme-'))));
  afterEach(async () => {
    await running?.stop();
    running = undefined;
    rmSync(directory, { recursive: true, force: true });
  });

  it('the sample app: started in one terminal, called from a second one', async () => {
    const [start, calls] = shellBlocks('docs/sample-app.md', 'Run it');
    const { env } = splitAtStart(start!);
    running = startServiceProcess(join(ROOT, 'packages', 'sample-app', 'src', 'main.ts'), { ...env, PORT: '0' });
    // Its one line is for a person, not JSON: "sample app listening on http://127.0.0.1:PORT (node vX.Y.Z; docs at
    // /swagger); …".
    let url: string | undefined;
    for (let i = 0; i < 2400 && !url; i++, await sleep(25))
      url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(running.stdout.join('\n'))?.[1];
    expect(url, running.stderr.join('\n')).to.be.a('string');

    const { stdout, statuses } = await runBlock(calls!.replaceAll('http://localhost:8081', url!));
    expect(statuses).to.deep.equal(['200', '200']);
    expect(promisedFragments(calls!)).to.deep.equal(['"message":"Hello, Zoë!"']);
    for (const fragment of promisedFragments(calls!)) expect(stdout).to.contain(fragment);
  });

  it('identity: the clients file written as shown, the service started on it, a token for its client', async () => {
    const [setup, request] = shellBlocks('docs/identity.md', 'Clients');
    const { before, env } = splitAtStart(setup!);
    expect(env).to.have.property('IDENTITY_CLIENTS_FILE');
    await runBlock(before, directory);
    running = startServiceProcess(join(ROOT, 'packages', 'identity', 'src', 'main.ts'), env, { cwd: directory });
    const url = String((await running.listening()).url);

    const { stdout, statuses } = await runBlock(request!.replaceAll('http://localhost:8083', url), directory);
    expect(statuses).to.deep.equal(['200']);
    expect(JSON.parse(stdout)).to.include({ token_type: 'Bearer', scope: 'stock:read', expires_in: 600 });
    for (const fragment of promisedFragments(request!)) expect(stdout).to.contain(fragment);
  });
});

/** Every section of the README and the docs pages that shows shell commands, and what runs them as written. */
const RUN_AS_WRITTEN: Record<string, string> = {
  'README.md › Quick start': '.ci/run: the install and every test',
  'README.md › The whole system in one command': 'packages/system-tests/test/start-system.test.ts',
  'README.md › Load and export a catalogue': 'this file',
  'docs/stock-api.md › Import and export': 'this file',
  'docs/stock-api.md › Try it': 'this file',
  'docs/stock-api.md › Reservations and the stock ledger': 'this file',
  'docs/stock-api.md › Stock by location': 'this file',
  'docs/stock-api.md › Search': 'this file',
  'docs/sales-api.md › An order, start to finish': 'packages/system-tests/test/readme-walkthrough.test.ts',
  'docs/identity.md › Clients': 'this file',
  'docs/sample-app.md › Run it': 'this file',
};

/** Pages whose commands reproduce a measurement or a drill with its tool, rather than show the system to a reader. */
const TOOL_PAGES = ['docs/operations.md', 'docs/performance.md'];

/** The sections (page › heading) that hold a shell block. */
function sectionsWithShellBlocks(page: string): string[] {
  return readFileSync(join(ROOT, page), 'utf8')
    .split(/\n(?=## )/)
    .filter((section) => section.includes('```sh\n'))
    .map((section) => `${page} › ${/^## (.*)$/m.exec(section)?.[1] ?? '(before the first section)'}`);
}

describe('the examples of the README and the docs pages', () => {
  it('are each run by a test as written: a new shell example fails here until one runs it', () => {
    const docs = readdirSync(join(ROOT, 'docs')).filter((file) => file.endsWith('.md'));
    const pages = ['README.md', ...docs.map((file) => `docs/${file}`)];
    const shown = pages.filter((page) => !TOOL_PAGES.includes(page)).flatMap(sectionsWithShellBlocks);
    expect(shown.sort()).to.deep.equal(Object.keys(RUN_AS_WRITTEN).sort());
  });
});
