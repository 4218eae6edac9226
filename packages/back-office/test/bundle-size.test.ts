import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const PACKAGE = join(import.meta.dirname, '..');
/** The budget for what the browser loads before the app shows anything. */
const BUDGET = 250_000;

describe('the back office’s initial JavaScript', function () {
  this.timeout(120_000);
  let out: string;
  before(() => {
    out = mkdtempSync(join(tmpdir(), 'back-office-size-'));
    const built = spawnSync('pnpm', ['exec', 'vite', 'build', '--logLevel', 'warn'], {
      cwd: PACKAGE,
      encoding: 'utf8',
      env: { ...process.env, BACK_OFFICE_OUT_DIR: out },
    });
    expect(built.status, built.stderr).to.equal(0);
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  it('is at most 250,000 bytes gzipped: every script index.html loads or preloads', () => {
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    const scripts = [
      ...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="\/admin\/([^"]+\.js)"/g),
    ];
    expect(scripts, 'the entry script').not.to.be.empty;
    const gzipped = scripts.reduce((sum, [, file]) => sum + gzipSync(readFileSync(join(out, file!))).length, 0);
    expect(gzipped).to.be.at.most(BUDGET);
  });
});
