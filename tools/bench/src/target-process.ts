import { freePort } from '@platform/test-kit';
import { bundle } from '@tools/build';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { environmentFor } from './checkout-at';

const root = join(import.meta.dirname, '..', '..', '..');
/** Where the targets are bundled: beside the services' own dist/, so their packages resolve alike. */
const BUNDLES = join(root, 'dist', 'bench');

/** Which Node runs a target, and from where (whose tsx): unless told, the harness's own and this workspace. */
export interface Runtime {
  readonly node?: string;
  readonly cwd?: string;
}

const bundled = new Map<string, Promise<string>>();

/**
 * The JavaScript a target runs, as production runs the services (ADR 0025): targets/<script> bundled by esbuild as
 * `pnpm build` bundles them, once per harness run. Another checkout's service (service-at.ts) is that checkout's own
 * dist/stock.js, built by its `pnpm build`; a checkout without one runs its sources under its tsx, as before.
 */
export async function programOf(
  script: string,
  cwd: string,
): Promise<{ file: string; tsx: boolean; announces: boolean }> {
  if (script === 'service-at.ts') {
    const built = join(cwd, 'dist', 'stock.js');
    // The service's own entry says where it listens in an info line, which a quieter LOG_LEVEL leaves out.
    return existsSync(built)
      ? { file: built, tsx: false, announces: false }
      : { file: join(import.meta.dirname, 'targets', script), tsx: true, announces: true };
  }
  const name = script.replace(/\.ts$/, '');
  let file = bundled.get(name);
  if (!file) {
    file = bundle({ [name]: `tools/bench/src/targets/${script}` }, BUNDLES).then(() => join(BUNDLES, `${name}.js`));
    bundled.set(name, file);
  }
  return { file: await file, tsx: false, announces: true };
}

/** How long a target may take to listen before the harness gives up on it. */
const START_DEADLINE_MS = 120_000;

/** Resolves once `port` answers /health/live; rejects when the child exits first or the deadline passes. */
async function answering(child: ChildProcess, port: number, script: string): Promise<{ port: number; token?: string }> {
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const deadline = Date.now() + START_DEADLINE_MS;
  for (;;) {
    if (exited !== undefined) throw new Error(`${script} exited with ${exited} before listening`);
    if (Date.now() > deadline) throw new Error(`${script} did not answer /health/live on ${port} within 2 minutes`);
    const live = await fetch(`http://127.0.0.1:${port}/health/live`).catch(() => undefined);
    if (live?.ok) return { port };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The port a target listens on, from one line of its stdout: the harness's targets print
 * `{"message":"listening","port":…}`; a service's own entry logs its `url` with "listening" in the message.
 */
function listeningPort(line: string): number | undefined {
  if (!line.includes('listening')) return undefined;
  const message = JSON.parse(line) as { message?: string; port?: number; url?: string };
  if (message.message === 'listening' && message.port) return message.port;
  if (message.message?.includes(' listening on ') && message.url) return Number(new URL(message.url).port);
  return undefined;
}

/**
 * Starts one of targets/*.ts in a process of its own and answers once it
 * listens. Its stdout (the service's access log, at the level `env` sets) is
 * read and thrown away, as a log collector would read it.
 */
export async function startTarget(
  script: string,
  databaseUrl: string,
  poolSize: string,
  env: Readonly<Record<string, string>> = {},
  nodeFlags: readonly string[] = [],
  { node, cwd = root }: Runtime = {},
): Promise<{ child: ChildProcess; base: string; token?: string }> {
  const program = await programOf(script, cwd);
  // A target that does not say where it listens is given a port, and found by its health check there.
  const fixedPort = program.announces ? undefined : await freePort();
  const loader = program.tsx ? ['--import', 'tsx'] : ['--enable-source-maps'];
  const child = spawn(node ?? process.execPath, [...nodeFlags, ...loader, program.file], {
    cwd,
    env: {
      ...(node ? environmentFor(node) : process.env),
      PORT: String(fixedPort ?? 0),
      DATABASE_URL: databaseUrl,
      DB_POOL_SIZE: poolSize,
      NODE_ENV: 'production',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (fixedPort !== undefined) child.stdout.on('data', () => {});
  const { port, token } =
    fixedPort !== undefined ? await answering(child, fixedPort, script) : await announced(child, script);
  return { child, base: `http://127.0.0.1:${port}`, ...(token && { token }) };
}

/** The port (and token) a target's stdout says it listens on; rejects when it exits first or the deadline passes. */
function announced(child: ChildProcess, script: string): Promise<{ port: number; token?: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${script} did not say it listens within 2 minutes`)),
      START_DEADLINE_MS,
    );
    let buffer = '';
    const lookForListening = (chunk: Buffer) => {
      const lines = (buffer + String(chunk)).split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        const port = listeningPort(line);
        if (port === undefined) continue;
        const { token } = JSON.parse(line) as { token?: string };
        child.stdout!.off('data', lookForListening);
        child.stdout!.on('data', () => {});
        clearTimeout(timer);
        resolve({ port, ...(token && { token }) });
      }
    };
    child.stdout!.on('data', lookForListening);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before listening`));
    });
  });
}

export async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  child.kill('SIGKILL');
}

/**
 * CPU seconds (user + system) the process has used so far, from /proc: every
 * thread of it (the main thread, V8's compiler and GC helpers, libuv's pool),
 * those that have ended included, counted in the kernel's ticks of 10 ms.
 */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident memory of the process, in MiB, from /proc. */
export function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) / 1024;
}
