/**
 * pnpm build: each entry below bundled by esbuild into dist/<name>.js (ESM, Node 24) with its source map, then
 * dist/build.json, the record start checks against (ADR 0025).
 *
 * The workspace's own TypeScript is bundled; every package from node_modules stays outside and is imported by the
 * path it resolves to from the file that imports it (pnpm links a package's dependencies beside it, not at the
 * root, so a bare `import 'koa'` from dist/ would find nothing). The native SQLite driver, OpenTelemetry's
 * instrumentations (they patch modules as Node loads them) and everything else load as they do under tsx.
 *
 * A bundled file's `import.meta.url` is rewritten to its source file's URL: the entries find docs/*.yaml and
 * resolve packages from where their source sits, as they do under tsx.
 */
import { build, type Plugin } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { type BuildRecord, hashOf, RECORD_FILE, sha256 } from './build-record';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const DIST = join(ROOT, 'dist');

/** dist/<name>.js from each source entry: the services, then the tools the root scripts run. */
export const ENTRIES: Readonly<Record<string, string>> = {
  stock: 'packages/stock/service/src/main.ts',
  sales: 'packages/sales/service/src/main.ts',
  sample: 'packages/sample-app/src/main.ts',
  identity: 'packages/identity/src/main.ts',
  gateway: 'packages/gateway/src/main.ts',
  payments: 'packages/offline-payments/src/main.ts',
  system: 'tools/system/src/start-system.ts',
  migrate: 'packages/stock/service/src/migrate.ts',
  seed: 'tools/seed/src/main.ts',
  'rotate-keys': 'packages/identity/src/rotate-keys-main.ts',
  'add-user': 'packages/identity/src/add-user-main.ts',
};

/** Files outside the bundle's inputs that decide what it is: how packages resolve, and how it is built. */
const ALWAYS_INPUTS = [
  'pnpm-lock.yaml',
  'tsconfig.base.json',
  'tools/build/package.json',
  'tools/build/src/build.ts',
  'tools/build/src/build-record.ts',
];

const toPosix = (path: string) => path.split(sep).join('/');
const inNodeModules = (path: string) => path.split(sep).includes('node_modules');

/** Packages from node_modules stay external, imported by the path they resolve to from a file in `outdir`. */
const externalNodeModules = (outdir: string): Plugin => ({
  name: 'external-node-modules',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'resolving' || args.path.startsWith('node:')) return undefined;
      const resolved = await esbuild.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'resolving',
      });
      if (resolved.errors.length > 0 || resolved.external || !inNodeModules(resolved.path)) return resolved;
      return { path: toPosix(relative(outdir, resolved.path)).replace(/^(?!\.)/, './'), external: true };
    });
  },
});

/**
 * A bundled file's import.meta.url names its source file, as it does under tsx. The hash of each source is taken from
 * the text bundled, so a file edited during a build is recorded as it was read, and the next start rebuilds.
 */
const sourceImportMeta = (outdir: string, hashes: Map<string, string>): Plugin => ({
  name: 'source-import-meta',
  setup(esbuild) {
    esbuild.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      if (inNodeModules(args.path)) return undefined;
      const source = readFileSync(args.path, 'utf8');
      hashes.set(toPosix(relative(ROOT, args.path)), sha256(source));
      if (/\bimport\.meta\.(dirname|filename)\b/.test(source)) {
        return { errors: [{ text: 'import.meta.dirname and .filename name dist/ once bundled: use import.meta.url' }] };
      }
      const fromDist = JSON.stringify(toPosix(relative(outdir, args.path)));
      const contents = source.replaceAll(/\bimport\.meta\.url\b/g, `new URL(${fromDist}, import.meta.url).href`);
      return { contents, loader: 'ts' };
    });
  },
});

/** The package.json of the package each input sits in: its exports and imports decide what the bundle read. */
function packageFilesOf(inputs: readonly string[]): string[] {
  const found = new Set<string>();
  const seen = new Set<string>();
  for (const input of inputs) {
    for (let dir = dirname(join(ROOT, input)); dir.startsWith(ROOT) && !seen.has(dir); dir = dirname(dir)) {
      seen.add(dir);
      if (existsSync(join(dir, 'package.json'))) {
        found.add(toPosix(relative(ROOT, join(dir, 'package.json'))));
        break;
      }
    }
  }
  return [...found];
}

function writeWhole(file: string, contents: string | Uint8Array): void {
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, contents);
  renameSync(partial, file);
}

/**
 * Bundles each entry (its output name → its source, relative to the workspace) into `outdir`, as `pnpm build` bundles
 * the services; `hashes` collects each source file's hash as it was read. The benchmarks bundle their targets the
 * same way, so what they measure is the JavaScript production runs.
 */
export async function bundle(
  entries: Readonly<Record<string, string>>,
  outdir: string,
  hashes = new Map<string, string>(),
): Promise<string[]> {
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: Object.entries(entries).map(([out, source]) => ({ out, in: source })),
    outdir,
    bundle: true,
    splitting: false,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    sourcemap: 'linked',
    sourcesContent: false,
    // Error classes and log lines use constructor names; a bundle must not rename two classes that share one.
    keepNames: true,
    // No "module" condition: a package resolves as Node resolves it.
    conditions: [],
    metafile: true,
    write: false,
    logLevel: 'warning',
    plugins: [externalNodeModules(outdir), sourceImportMeta(outdir, hashes)],
  });
  // Each file whole or not at all: a service starting while another start rebuilds reads one build or the other.
  for (const output of result.outputFiles) writeWhole(output.path, output.contents);
  return Object.keys(result.metafile.inputs).filter((input) => !inNodeModules(input));
}

export async function buildDist(): Promise<BuildRecord> {
  const hashes = new Map<string, string>();
  const bundled = await bundle(ENTRIES, DIST, hashes);
  const files = [...new Set([...bundled, ...packageFilesOf(bundled), ...ALWAYS_INPUTS])].sort();
  const inputs: Record<string, string> = {};
  for (const file of files) inputs[file] = hashes.get(file) ?? hashOf(join(ROOT, file)) ?? '';
  const record: BuildRecord = { inputs, entries: Object.keys(ENTRIES), builtAt: new Date().toISOString() };
  writeWhole(join(ROOT, RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);
  return record;
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { quiet: { type: 'boolean', default: false } } });
  const started = performance.now();
  const record = await buildDist();
  if (!values.quiet) {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const count = Object.keys(record.inputs).length;
    process.stdout.write(`build: ${record.entries.length} entries into dist/ from ${count} files in ${seconds} s\n`);
  }
}
