import { type RunningService, startService } from '@platform/koa';
import { sweepExpiredIdempotencyKeys } from '@platform/mikro-orm';
import { every, type Logger, redactedUrl } from '@platform/runtime';
import type { DependencyContainer } from 'tsyringe';
import type { SalesServiceConfig } from './config';
import { createContainer } from './container';
import { Tokens } from './tokens';

const SWEEP_INTERVAL_MS = 60_000;

export interface RunningSalesService extends RunningService<Logger> {
  readonly container: DependencyContainer;
}

export interface StartOptions {
  readonly logger?: Logger;
  /** Replaces registrations before anything is built. */
  readonly configure?: (container: DependencyContainer) => void;
}

/** Starts the sales service as the platform starts every service; `close` also closes its connections to stock. */
export async function startSalesService(config: SalesServiceConfig, options: StartOptions = {}): Promise<RunningSalesService> {
  let container!: DependencyContainer;
  const running = await startService(config, async () => {
    container = await createContainer(config, options.logger);
    options.configure?.(container);
    const logger = container.resolve(Tokens.Logger);
    const database = container.isRegistered(Tokens.Database) ? container.resolve(Tokens.Database) : undefined;
    const catalog = container.resolve(Tokens.ProductCatalog);
    return {
      logger,
      http: container.resolve(Tokens.HttpApp),
      ...(database && { database, databaseName: redactedUrl(config.databaseUrl) }),
      startBackground: () => (database ? [every(SWEEP_INTERVAL_MS, 'idempotency sweep', () => sweepExpiredIdempotencyKeys(database.session, Date.now()), logger)] : []),
      dispose: () => catalog.close(),
    };
  });
  return { ...running, container };
}
