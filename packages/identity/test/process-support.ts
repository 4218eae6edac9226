import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const SRC = join(import.meta.dirname, '..', 'src');
/** tsx's loader by absolute URL, so the process may run from any working directory. */
const TSX = import.meta.resolve('tsx');

export interface IdentityProcess {
  readonly child: ChildProcess;
  readonly stdout: string[];
  readonly stderr: string[];
  /** Resolves with the exit code (or the signal's name). */
  readonly exited: Promise<number | string>;
  /** The issuer from the "listening" line, once it is written. */
  issuer(): Promise<string>;
}

/** `script` of src/ (main.ts, rotate-keys-main.ts) in a process of its own, as the root package's scripts run it. */
export function runScript(script: string, env: Record<string, string>): IdentityProcess {
  const child = spawn(process.execPath, ['--import', TSX, join(SRC, script)], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', SHUTDOWN_DELAY_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
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
    async issuer() {
      for (let i = 0; i < 600; i++) {
        const line = stdout.find((l) => l.includes('listening on'));
        if (line) return (JSON.parse(line) as { issuer: string }).issuer;
        if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${stderr.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('no listening line');
    },
  };
}

/** Stops a process started here, and waits for it. */
export async function stop(running: IdentityProcess): Promise<number | string> {
  if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGTERM');
  return running.exited;
}

/** Asks `check` again until it answers true: for what a process does on its own time (a file watch). */
export async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never happened: ${what}`);
}
