import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { environmentFor } from './checkout-at';

const root = join(import.meta.dirname, '..', '..', '..');

/** Which Node runs a target, and from where (whose tsx): unless told, the harness's own and this workspace. */
export interface Runtime {
  readonly node?: string;
  readonly cwd?: string;
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
  const entry = join(import.meta.dirname, 'targets', script);
  const child = spawn(node ?? process.execPath, [...nodeFlags, '--import', 'tsx', entry], {
    cwd,
    env: {
      ...(node ? environmentFor(node) : process.env),
      PORT: '0',
      DATABASE_URL: databaseUrl,
      DB_POOL_SIZE: poolSize,
      NODE_ENV: 'production',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const { port, token } = await new Promise<{ port: number; token?: string }>((resolve, reject) => {
    let buffer = '';
    const lookForListening = (chunk: Buffer) => {
      const lines = (buffer + String(chunk)).split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        if (!line.includes('"listening"')) continue;
        const message = JSON.parse(line) as { message?: string; port?: number; token?: string };
        if (message.message === 'listening' && message.port) {
          child.stdout.off('data', lookForListening);
          child.stdout.on('data', () => {});
          resolve({ port: message.port, ...(message.token && { token: message.token }) });
        }
      }
    };
    child.stdout.on('data', lookForListening);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening`)));
  });
  return { child, base: `http://127.0.0.1:${port}`, ...(token && { token }) };
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
