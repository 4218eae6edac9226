import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The broker the messaging suites use: each suite gets a vhost of its own on it. */
export const RABBITMQ_URL = process.env.AMQP_TEST_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

/** In CI (or with REQUIRE_RABBITMQ=1) a missing broker fails the run instead of skipping. */
export const rabbitmqRequired = process.env.REQUIRE_RABBITMQ === '1' || process.env.CI === 'true';

/** Runs rabbitmqctl (vhosts cannot be made over AMQP) and answers what it printed. */
export async function rabbitmqctl(...args: string[]): Promise<string> {
  const { stdout } = await run('rabbitmqctl', ['-q', ...args], { timeout: 60_000 });
  return stdout;
}

export interface ScratchVhost {
  readonly name: string;
  /** RABBITMQ_URL with this vhost as its path. */
  readonly url: string;
  /** Messages in each queue of the vhost, by queue name. */
  queueDepths(): Promise<Record<string, number>>;
  readonly drop: () => Promise<void>;
}

/** `url` with another vhost. */
export function vhostUrl(name: string, base = RABBITMQ_URL): string {
  const url = new URL(base);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

/**
 * Creates an empty vhost for one suite, with every permission for the URL's
 * user. When the broker or rabbitmqctl is missing, fails if RabbitMQ is
 * required, else skips the suite with a notice.
 */
export async function createScratchVhost(context: Mocha.Context): Promise<ScratchVhost> {
  const name = `test_${process.pid}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
  const user = decodeURIComponent(new URL(RABBITMQ_URL).username) || 'guest';
  try {
    await rabbitmqctl('add_vhost', name);
    await rabbitmqctl('set_permissions', '-p', name, user, '.*', '.*', '.*');
  } catch (error) {
    if (rabbitmqRequired)
      throw new Error(`RabbitMQ is required but could not make a vhost (rabbitmqctl add_vhost): ${String(error)}`, {
        cause: error,
      });
    console.warn(
      `  ! RabbitMQ unavailable (${String(error).split('\n')[0]}): skipping "${context.test?.parent?.fullTitle()}". Set REQUIRE_RABBITMQ=1 to fail instead.`,
    );
    context.skip();
  }
  return {
    name,
    url: vhostUrl(name),
    async queueDepths() {
      const rows = JSON.parse(
        await rabbitmqctl('list_queues', '-p', name, 'name', 'messages', '--formatter', 'json'),
      ) as { name: string; messages: number }[];
      return Object.fromEntries(rows.map((row) => [row.name, row.messages]));
    },
    drop: async () => void (await rabbitmqctl('delete_vhost', name).catch(() => undefined)),
  };
}

/** Stops the broker's application (connections drop, the node stays up) and starts it again after `downMs`. */
export async function restartRabbitmq(downMs = 1_000): Promise<void> {
  await rabbitmqctl('stop_app');
  try {
    await new Promise((resolve) => setTimeout(resolve, downMs));
  } finally {
    await rabbitmqctl('start_app');
    await rabbitmqctl('await_startup');
  }
}
