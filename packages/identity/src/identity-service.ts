import { type CloseOptions, listen, type RunningServer, serve } from '@platform/http';
import { createLogger, type Logger } from '@platform/runtime';
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type Provider from 'oidc-provider';
import { readClientsFile } from './clients-file';
import type { IdentityConfig } from './config';
import { createProvider } from './create-provider';
import { createIdentityApp } from './identity-app';
import { createKeysFileIfMissing, readKeysFile } from './keys-file';

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
  return [...new Set(files.map((file) => dirname(file)))].map((folder) =>
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

/**
 * Binds the port first, then reads the clients and keys (creating the keys
 * file on a first start) and serves. Nothing is kept between requests but
 * what the two files say, so instances sharing them issue equally valid tokens.
 */
export async function startIdentityService(
  config: IdentityConfig,
  options: StartOptions = {},
): Promise<RunningIdentityService> {
  const logger = options.logger ?? createLogger('identity', config.logLevel, config.logFormat);
  const listener = await listen(config);
  try {
    const issuer = config.issuer || localIssuer(config.host, listener.port);
    const created = await createKeysFileIfMissing(config.keysFile);
    if (created) logger.info('created the signing keys file', { file: config.keysFile, kid: created, mode: '0600' });

    let fingerprint = '';
    const build = async (): Promise<Provider | undefined> => {
      const clients = readClientsFile(config.clientsFile);
      const keys = await readKeysFile(config.keysFile);
      const read = JSON.stringify([clients, keys]);
      if (read === fingerprint) return undefined;
      const provider = await createProvider({
        issuer,
        keys,
        clients,
        accessTokenTtlSeconds: config.accessTokenTtlSeconds,
        trustProxy: config.trustProxy === 'true',
        logger,
      });
      fingerprint = read;
      logger.info('signing keys and clients loaded', {
        signingKid: keys.keys[0]!.kid,
        publishedKids: keys.keys.map((key) => key.kid),
        clients: clients.length,
      });
      return provider;
    };
    let provider = (await build())!;
    const reload = coalesced(async () => {
      try {
        provider = (await build()) ?? provider;
      } catch (error) {
        logger.error('reloading the keys or clients failed; the previous ones stay in use', {
          error: (error as Error).message,
        });
      }
    });

    const http = createIdentityApp({
      logger,
      mountPath: new URL(issuer).pathname.replace(/\/$/, ''),
      provider: () => provider,
      trustProxy: config.trustProxy === 'true',
    });
    const server = serve(listener, http, config, logger);
    const watchers = watchFiles([config.keysFile, config.clientsFile], () => void reload(), logger);
    let closing: Promise<boolean> | undefined;
    const close = (closeOptions?: CloseOptions) => {
      for (const watcher of watchers) watcher.close();
      return server.close(closeOptions);
    };
    return { ...server, logger, issuer, reload, close: (closeOptions) => (closing ??= close(closeOptions)) };
  } catch (error) {
    await listener.close();
    throw error;
  }
}
