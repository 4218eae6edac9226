import { eventually } from '@platform/test-kit';
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BuildRecord, hashOf, RECORD_FILE, staleness } from '../src/build-record';
import { buildDist } from '../src/build';

const ROOT = join(import.meta.dirname, '..', '..', '..');

describe('pnpm build', function () {
  this.timeout(60_000);

  it('bundles a stock entry that plain node serves, and records a dist/ its start finds fresh', async () => {
    await buildDist();
    expect(staleness(ROOT)).to.equal(undefined);
    const child = spawn(process.execPath, ['--enable-source-maps', join(ROOT, 'dist', 'stock.js')], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: 'memory:', LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += String(chunk)));
    child.stderr.on('data', (chunk: Buffer) => (output += String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const line = await eventually('the start line', 30_000, async () =>
        output.split('\n').find((l) => l.includes('listening on')),
      );
      const { url } = JSON.parse(line) as { url: string };
      const ready = await fetch(`${url}/health/ready`);
      expect(ready.status).to.equal(200);
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  describe('the stale check', () => {
    let root: string;
    const write = (file: string, text: string) => writeFileSync(join(root, file), text);
    const recordOf = (inputs: readonly string[]): BuildRecord => ({
      inputs: Object.fromEntries(inputs.map((file) => [file, hashOf(join(root, file))!])),
      entries: ['stock'],
      builtAt: new Date().toISOString(),
    });

    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'build-record-'));
      mkdirSync(join(root, 'dist'));
      write('dist/stock.js', '');
      write('main.ts', 'export const a = 1;\n');
      write('pnpm-lock.yaml', 'lockfileVersion: 9.0\n');
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('finds dist/ fresh while every input hashes as it did, even touched', () => {
      const record = recordOf(['main.ts', 'pnpm-lock.yaml']);
      utimesSync(join(root, 'main.ts'), new Date(), new Date(Date.now() + 60_000));
      expect(staleness(root, record)).to.equal(undefined);
    });

    it('names the first input changed or gone, and a missing record or entry', () => {
      const record = recordOf(['main.ts', 'pnpm-lock.yaml']);
      write('pnpm-lock.yaml', 'lockfileVersion: 9.1\n');
      expect(staleness(root, record)).to.equal('pnpm-lock.yaml changed');
      rmSync(join(root, 'main.ts'));
      expect(staleness(root, record)).to.equal('main.ts is gone');
      rmSync(join(root, 'dist', 'stock.js'));
      expect(staleness(root, record)).to.equal('dist/stock.js is missing');
      expect(staleness(root)).to.equal(`no ${RECORD_FILE}`);
    });

    it('reads the record the build wrote', () => {
      write(RECORD_FILE, JSON.stringify(recordOf(['main.ts'])));
      expect(staleness(root)).to.equal(undefined);
      write('main.ts', 'export const a = 2;\n');
      expect(staleness(root)).to.equal('main.ts changed');
    });
  });
});
