import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backOfficeStaleness, buildBackOfficeIfStale } from '../src/back-office-build';

describe('start:system’s build of the back office', () => {
  let root: string;
  let app: string;
  const write = (path: string, at: number) => {
    writeFileSync(join(app, path), 'x');
    utimesSync(join(app, path), at, at);
  };
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'back-office-build-'));
    app = join(root, 'packages', 'back-office');
    mkdirSync(join(app, 'src', 'orders'), { recursive: true });
    write('index.html', 1_000);
    write('package.json', 1_000);
    write('src/orders/order-page.tsx', 1_000);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('builds when there is no build, or a source changed after it; not when the build is newer', () => {
    expect(backOfficeStaleness(app)).to.equal('it was never built');
    mkdirSync(join(app, 'dist'));
    write('dist/index.html', 2_000);
    expect(backOfficeStaleness(app)).to.equal(undefined);
    write('src/orders/order-page.tsx', 3_000);
    expect(backOfficeStaleness(app)).to.equal(join('src', 'orders', 'order-page.tsx') + ' changed since it was');
  });

  it('says in one line how to build it when its build fails, and nothing when it is fresh', () => {
    const failed = buildBackOfficeIfStale(root, [
      process.execPath,
      '-e',
      'console.error("vite: broken"); process.exit(1)',
    ]);
    expect(failed).to.deep.equal({
      kind: 'failed',
      line: `the back office needs a build (it was never built) and ${process.execPath} -e console.error("vite: broken"); process.exit(1) failed (vite: broken): run pnpm build:back-office, then reload /admin/`,
    });
    const built = buildBackOfficeIfStale(root, [
      process.execPath,
      '-e',
      `require("fs").mkdirSync("packages/back-office/dist"); require("fs").writeFileSync("packages/back-office/dist/index.html", "")`,
    ]);
    expect(built.kind).to.equal('built');
    expect(buildBackOfficeIfStale(root, ['false'])).to.deep.equal({ kind: 'fresh' });
  });
});
