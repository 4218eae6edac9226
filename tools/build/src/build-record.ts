/**
 * dist/build.json: what a build bundled, so a start can tell a stale dist/ from a fresh one without building.
 *
 * The record lists every workspace file esbuild read (its metafile's inputs) and the files that decide how the
 * bundle resolves (the lockfile, the package.json of each package it read, the build's own sources), each with a
 * hash of its content. dist/ is fresh when each listed file still hashes the same: a file edited, removed or
 * checked out differently makes it stale, a file merely touched does not. A new file matters only once a listed
 * file imports it, and that edit is seen.
 *
 * This file runs under plain Node (its type stripping, no loader) and imports only Node's own modules: the start
 * scripts call it before every start, so it must be cheap and must not need the build it checks.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const RECORD_FILE = 'dist/build.json';

export interface BuildRecord {
  /** Each input's path from the repository root, and the SHA-256 of its content. */
  readonly inputs: Readonly<Record<string, string>>;
  readonly entries: readonly string[];
  readonly builtAt: string;
}

/** The SHA-256 of a content, as the record keeps it. */
export const sha256 = (content: string | Uint8Array): string => createHash('sha256').update(content).digest('hex');

export const hashOf = (file: string): string | undefined => {
  try {
    return sha256(readFileSync(file));
  } catch {
    return undefined;
  }
};

export function readRecord(root: string): BuildRecord | undefined {
  try {
    return JSON.parse(readFileSync(join(root, RECORD_FILE), 'utf8')) as BuildRecord;
  } catch {
    return undefined;
  }
}

/** Why dist/ cannot be served as it is, or undefined when every entry is there and every input unchanged. */
export function staleness(root: string, record: BuildRecord | undefined = readRecord(root)): string | undefined {
  if (record === undefined) return `no ${RECORD_FILE}`;
  for (const entry of record.entries) {
    if (!existsSync(join(root, 'dist', `${entry}.js`))) return `dist/${entry}.js is missing`;
  }
  for (const [file, hash] of Object.entries(record.inputs)) {
    const now = hashOf(join(root, file));
    if (now === undefined) return `${file} is gone`;
    if (now !== hash) return `${file} changed`;
  }
  return undefined;
}

/**
 * `node tools/build/src/build-record.ts`: rebuilds dist/ when it is stale, saying so in one line on stderr, and
 * exits 0 when dist/ can be served (1 when the build failed). The start scripts run it, then exec the built entry.
 */
if (import.meta.main) {
  const root = join(import.meta.dirname, '..', '..', '..');
  const reason = staleness(root);
  if (reason !== undefined) {
    const started = performance.now();
    const build = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'tools/build/src/build.ts'), '--quiet'], {
      cwd: root,
      stdio: 'inherit',
    });
    if (build.status !== 0) {
      process.stderr.write(`build: dist/ cannot be served (${reason}) and the rebuild failed: nothing started\n`);
      process.exit(1);
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stderr.write(`build: rebuilt dist/ in ${seconds} s (${reason})\n`);
  }
}
