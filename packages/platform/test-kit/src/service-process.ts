import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { pathToFileURL } from 'node:url';

/**
 * tsx's loader by absolute URL, so a process may run from any working
 * directory. Through createRequire, not import.meta.resolve: mocha may load
 * this file through tsx's CommonJS transform, which has no import.meta.resolve.
 */
let tsx: string | undefined;
const tsxLoader = () => (tsx ??= pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href);

export interface ServiceProcess {
  readonly child: ChildProcess;
  /** Every stdout line, as written. */
  readonly stdout: string[];
  readonly stderr: string[];
  /** Resolves with the exit code (or the signal's name). */
  readonly exited: Promise<number | string>;
  /** The JSON of the first line whose message says "listening on", once it is written. */
  listening(): Promise<Record<string, unknown>>;
  /** The port of the URL in the "listening" line. */
  port(): Promise<number>;
  /** Sends `signal` (SIGTERM by default) unless it has exited, and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/** Splits a stream's chunks into lines. */
function lines(into: string[]): (chunk: Buffer) => void {
  let partial = '';
  return (chunk) => {
    const split = (partial + String(chunk)).split('\n');
    partial = split.pop()!;
    into.push(...split);
  };
}

/**
 * A service's `main.ts` (or any script) in a process of its own, as the root
 * package's scripts run it: real processes for tests that kill, restart and
 * signal them. PORT is 0 and HOST 127.0.0.1 unless `env` says otherwise (a
 * variable given as undefined is left out). `detached` gives it a process
 * group of its own, which a signal to `-child.pid` reaches as a terminal's Ctrl-C does.
 */
export function startServiceProcess(
  script: string,
  env: Record<string, string | undefined>,
  options: { cwd?: string; detached?: boolean } = {},
): ServiceProcess {
  const child = spawn(process.execPath, ['--import', tsxLoader(), script], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options,
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stdout.on('data', lines(stdout));
  child.stderr.on('data', lines(stderr));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const listening = async () => {
    for (let i = 0; i < 1200; i++) {
      const line = stdout.find((l) => l.includes('listening on'));
      if (line) return JSON.parse(line) as Record<string, unknown>;
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(
          `${script} exited ${child.exitCode ?? child.signalCode} before listening: ${stderr.join('\n')}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`${script} wrote no listening line in 30 s`);
  };
  return {
    child,
    stdout,
    stderr,
    exited,
    listening,
    port: async () => Number(new URL(String((await listening()).url)).port),
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** A port free on loopback right now (bound, then released): for a process that must come back on the same port. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Whether a TCP connection to host:port opens: 'connected', or the error's code (ECONNREFUSED: nothing listens there).
 */
export function connectOutcome(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}
