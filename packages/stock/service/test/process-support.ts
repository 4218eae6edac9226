import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export const MAIN = join(import.meta.dirname, '..', 'src', 'main.ts');
/** tsx's loader by absolute URL, so the process may run from any working directory. */
const TSX = import.meta.resolve('tsx');

export interface ServiceProcess {
  readonly child: ChildProcess;
  /** Every stdout line, as written. */
  readonly stdout: string[];
  readonly stderr: string[];
  /** Resolves with the exit code (or the signal's name). */
  readonly exited: Promise<number | string>;
  /** The port from the "listening" line, once it is written. */
  port(): Promise<number>;
}

/** `main.ts` of the stock service in a process of its own, with the environment given. */
export function startProcess(env: Record<string, string>, options: { uid?: number; gid?: number; cwd?: string } = {}): ServiceProcess {
  const child = spawn(process.execPath, ['--import', TSX, MAIN], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options,
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const collect = (into: string[]) => {
    let partial = '';
    return (chunk: Buffer) => {
      const lines = (partial + String(chunk)).split('\n');
      partial = lines.pop()!;
      into.push(...lines);
    };
  };
  child.stdout!.on('data', collect(stdout));
  child.stderr!.on('data', collect(stderr));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return {
    child,
    stdout,
    stderr,
    exited,
    async port() {
      for (let i = 0; i < 600; i++) {
        const line = stdout.find((l) => l.includes('listening on'));
        if (line) return Number(new URL(String((JSON.parse(line) as { url: string }).url)).port);
        if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${stderr.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('no listening line');
    },
  };
}
