import {
  type CloseOptions,
  type HttpApp,
  type ListenOptions,
  listen,
  type Logger,
  type RunningServer,
  type ServeOptions,
  serve,
} from '../index';

/** What the start needs of a service's database: that it takes writes, its migrations, and a bounded close. */
export interface ServiceDatabase {
  canWrite(): Promise<boolean>;
  migrate(): Promise<string[]>;
  /** Answers false when connections had to be abandoned. */
  close(): Promise<boolean>;
}

/** Something that runs beside the server (a sweeper, a relay, a consumer) until it is stopped. */
export interface BackgroundWork {
  stop(): Promise<void>;
}

/** A service's parts, as its composition root assembles them; nothing is served or started yet. */
export interface ServiceAssembly<L extends Logger = Logger> {
  readonly logger: L;
  readonly http: HttpApp;
  /** Absent on `memory:`. */
  readonly database?: ServiceDatabase;
  /** How the database is named in the line that refuses a read-only one (the URL, password masked). */
  readonly databaseName?: string;
  /** Starts the background work, once migrations are applied and the server serves. */
  readonly startBackground?: () => BackgroundWork[] | Promise<BackgroundWork[]>;
  /**
   * Closes what the service holds besides its database (clients, broker connections), after the background work stops.
   */
  readonly dispose?: () => Promise<void>;
}

export interface RunningService<L extends Logger = Logger> extends RunningServer {
  readonly logger: L;
}

/**
 * Once serving has stopped, how long the background work, then what the
 * service holds, may take to stop; past it they are abandoned (as the
 * database's close abandons its connections), so a stalled database or broker
 * cannot keep a stopping process alive.
 */
export const RELEASE_TIMEOUT_MS = 2_000;

/** Whether `work` settled within `ms`; a rejection is passed on. */
async function within(ms: number, work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The start every service shares: bind the port first (a port in use stops
 * the start before the database is touched), assemble, check the database
 * takes writes, apply pending migrations, serve, then start the background
 * work. `close` stops serving, then the background work, then what the
 * service holds, then the database, each bounded (the grace period, then
 * RELEASE_TIMEOUT_MS, then the database's own bound), and answers false when
 * it had to cut or abandon anything; a failure anywhere in the start closes
 * what was opened.
 */
export async function startService<L extends Logger>(
  config: ListenOptions & ServeOptions,
  assemble: () => Promise<ServiceAssembly<L>>,
): Promise<RunningService<L>> {
  const listener = await listen(config);
  let assembly: ServiceAssembly<L>;
  try {
    assembly = await assemble();
  } catch (error) {
    await listener.close();
    throw error;
  }
  const { logger, http, database } = assembly;
  let background: BackgroundWork[] = [];
  let server: RunningServer | undefined;
  const release = async () => {
    const stopped = await within(RELEASE_TIMEOUT_MS, Promise.all(background.map((work) => work.stop())));
    if (!stopped)
      logger.warn('the background work did not stop in time: it was abandoned', { timeoutMs: RELEASE_TIMEOUT_MS });
    const disposed = await within(RELEASE_TIMEOUT_MS, assembly.dispose?.() ?? Promise.resolve());
    if (!disposed)
      logger.warn("the service's connections did not close in time: they were abandoned", {
        timeoutMs: RELEASE_TIMEOUT_MS,
      });
    const closed = (await database?.close()) ?? true;
    if (!closed) logger.warn('the database did not close in time: its connections were abandoned');
    return stopped && disposed && closed;
  };
  try {
    if (database && !(await database.canWrite())) {
      throw new Error(
        `The database${assembly.databaseName ? ` ${assembly.databaseName}` : ''} does not take writes (a read-only file or server, or a full disk).`,
      );
    }
    const applied = (await database?.migrate()) ?? [];
    if (applied.length > 0) logger.info('migrations applied', { migrations: applied });
    const serving = (server = serve(listener, http, config, logger));
    background = (await assembly.startBackground?.()) ?? [];
    let closing: Promise<boolean> | undefined;
    const close = async (options?: CloseOptions) => {
      const served = await serving.close(options);
      const released = await release();
      return served && released;
    };
    return { ...serving, logger, close: (options) => (closing ??= close(options)) };
  } catch (error) {
    if (server) await server.close({ immediate: true });
    else await listener.close();
    await release();
    throw error;
  }
}
