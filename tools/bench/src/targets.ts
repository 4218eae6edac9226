export type Storage = 'memory' | 'sqlite' | 'postgresql';

export interface Target {
  readonly name: string;
  readonly storage: Storage;
  /** The script under targets/ that serves it. */
  readonly script: string;
  /** The baseline this target is measured against, if it is not one itself. */
  readonly baseline?: string;
}

export const TARGETS: readonly Target[] = [
  { name: 'service · memory', storage: 'memory', script: 'service.ts', baseline: 'node:http + Map' },
  { name: 'service · SQLite', storage: 'sqlite', script: 'service.ts', baseline: 'node:http + better-sqlite3' },
  { name: 'service · PostgreSQL', storage: 'postgresql', script: 'service.ts', baseline: 'node:http + pg' },
  { name: 'node:http + Map', storage: 'memory', script: 'raw-map.ts' },
  { name: 'node:http + better-sqlite3', storage: 'sqlite', script: 'raw-sqlite.ts' },
  { name: 'node:http + pg', storage: 'postgresql', script: 'raw-pg.ts' },
  { name: 'Fastify + pg', storage: 'postgresql', script: 'fastify-pg.ts', baseline: 'node:http + pg' },
];
