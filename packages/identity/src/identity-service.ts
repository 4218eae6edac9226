import { type CloseOptions, listen, type RunningServer, serve } from '@platform/http';
import { createLogger, type Logger, redactedUrl } from '@platform/runtime';
import { Redis } from 'ioredis';
import { existsSync, type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type Provider from 'oidc-provider';
import { readClientsFile } from './clients-file';
import type { IdentityConfig } from './config';
import { createProvider } from './create-provider';
import { createIdentityApp } from './identity-app';
import { createKeysFileIfMissing, readKeysFile } from './keys-file';
import { SignInGuard } from './sign-in-guard';
import type { StaffSignIn } from './sign-in-routes';
import { readUsersFile, type StaffUser } from './users-file';

export interface RunningIdentityService extends RunningServer {
  readonly logger: Logger;
  /** The issuer tokens carry in `iss`; discovery is at {issuer}/.well-known/openid-configuration. */
  readonly issuer: string;
  /**
   * Reads the keys and clients files again and signs with the keys' first key from then on; a bad file keeps the
   * previous state.
   */
  reload(): Promise<void>;
}

export interface StartOptions {
  readonly logger?: Logger;
}

/** The issuer when ISSUER is not set: this instance's own address. */
function localIssuer(host: string, port: number): string {
  const name = !host || host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `http://${name.includes(':') ? `[${name}]` : name}:${port}`;
}

/** Calls `task` for every change; changes arriving while it runs are folded into one more run. */
function coalesced(task: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let again = false;
  const run = (): Promise<void> =>
    task().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        running = run();
      }
    });
  return () => {
    if (running) {
      again = true;
      return running.then(() => running);
    }
    return (running = run());
  };
}

/**
 * Watches the folders of `files` (a rotation renames a new file over the old one, which a watch on the file itself
 * would miss).
 */
function watchFiles(files: readonly string[], changed: () => void, logger: Logger): FSWatcher[] {
  const names = new Set(files.map((file) => basename(file)));
  // A folder that does not exist yet (the users file's, before anyone was added) is not watched; SIGHUP reloads.
  const folders = [...new Set(files.map((file) => dirname(file)))].filter((folder) => existsSync(folder));
  return folders.map((folder) =>
    watch(folder, (_event, name) => {
      if (name && names.has(name)) changed();
    }).on('error', (error) =>
      logger.warn('cannot watch for key rotations any more; send SIGHUP after rotating', {
        folder,
        error: String(error),
      }),
    ),
  );
}

/** The staff in the users file, or none when there is no such file (the issuer serves clients alone). */
function readStaff(config: IdentityConfig, redis: Redis | undefined): ReadonlyMap<string, StaffUser> | undefined {
  if (!existsSync(config.usersFile)) return undefined;
  const users = readUsersFile(config.usersFile);
  if (!redis)
    throw new Error(
      `The users file ${config.usersFile} has staff, who sign in through sessions every instance must share: set REDIS_URL.`,
    );
  return new Map(users.map((user) => [user.username, user]));
}

function connectRedis(config: IdentityConfig, logger: Logger): Redis | undefined {
  if (!config.redisUrl) return undefined;
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 1_000, connectTimeout: 2_000 });
  let reported = false;
  redis.on('error', (error) => {
    if (reported) return;
    reported = true; // once per outage, not on every reconnection attempt
    logger.error('Redis is not reachable: staff cannot sign in', {
      redis: redactedUrl(config.redisUrl),
      error: String(error),
    });
  });
  redis.on('ready', () => (reported = false));
  return redis;
}

/**
 * Binds the port first, then reads the clients, keys and users (creating the
 * keys file on a first start) and serves. Client-credentials tokens need
 * nothing but what the files say; staff sign-ins keep their sessions, codes,
 * refresh tokens and failure counts in Redis, so instances sharing the files
 * and Redis serve alike.
 */
export async function startIdentityService(
  config: IdentityConfig,
  options: StartOptions = {},
): Promise<RunningIdentityService> {
  const logger = options.logger ?? createLogger('identity', config.logLevel, config.logFormat);
  const listener = await listen(config);
  const redis = connectRedis(config, logger);
  try {
    const issuer = config.issuer || localIssuer(config.host, listener.port);
    const mountPath = new URL(issuer).pathname.replace(/\/$/, '');
    const guard = redis
      ? new SignInGuard(redis, {
          maxFailures: config.signInMaxFailures,
          lockSeconds: config.signInLockSeconds,
          failureDelayMs: config.signInFailureDelayMs,
        })
      : undefined;
    const created = await createKeysFileIfMissing(config.keysFile);
    if (created) logger.info('created the signing keys file', { file: config.keysFile, kid: created, mode: '0600' });

    let fingerprint = '';
    interface Issuing {
      readonly provider: Provider;
      readonly staff: StaffSignIn | undefined;
    }
    const build = async (): Promise<Issuing | undefined> => {
      const clients = readClientsFile(config.clientsFile);
      const keys = await readKeysFile(config.keysFile);
      const users = readStaff(config, redis);
      const read = JSON.stringify([clients, keys, users && [...users.values()]]);
      if (read === fingerprint) return undefined;
      const staffOptions = users && {
        mountPath,
        users,
        redis: redis!,
        keys,
        sessionTtlSeconds: config.staffSessionTtlSeconds,
      };
      const provider = await createProvider({
        issuer,
        keys,
        clients,
        accessTokenTtlSeconds: config.accessTokenTtlSeconds,
        trustProxy: config.trustProxy === 'true',
        logger,
        staff: staffOptions,
      });
      fingerprint = read;
      logger.info('signing keys, clients and users loaded', {
        signingKid: keys.keys[0]!.kid,
        publishedKids: keys.keys.map((key) => key.kid),
        clients: clients.length,
        users: users ? users.size : `none (no ${config.usersFile})`,
      });
      return { provider, staff: users && { provider, users, guard: guard! } };
    };
    let issuing = (await build())!;
    const reload = coalesced(async () => {
      try {
        issuing = (await build()) ?? issuing;
      } catch (error) {
        logger.error('reloading the keys, clients or users failed; the previous ones stay in use', {
          error: (error as Error).message,
        });
      }
    });

    const http = createIdentityApp({
      logger,
      mountPath,
      provider: () => issuing.provider,
      staff: () => issuing.staff,
      trustProxy: config.trustProxy === 'true',
    });
    const server = serve(listener, http, config, logger);
    const watchers = watchFiles([config.keysFile, config.clientsFile, config.usersFile], () => void reload(), logger);
    let closing: Promise<boolean> | undefined;
    const close = async (closeOptions?: CloseOptions) => {
      for (const watcher of watchers) watcher.close();
      const closed = await server.close(closeOptions);
      redis?.disconnect();
      return closed;
    };
    return { ...server, logger, issuer, reload, close: (closeOptions) => (closing ??= close(closeOptions)) };
  } catch (error) {
    redis?.disconnect();
    await listener.close();
    throw error;
  }
}
