import { runMain, createLogger } from '@platform/runtime';
import { openStockDatabase } from '@stock/persistence-sql';
import { loadConfig, mayCreateDatabase } from './config';

/** pnpm migrate: applies pending migrations to DATABASE_URL and exits. */
await runMain('stock migrate', async () => {
  const config = loadConfig();
  const logger = createLogger('stock-service', config.logLevel, config.logFormat);
  if (/^memory:/i.test(config.databaseUrl)) {
    logger.info('nothing to migrate: memory: keeps no schema');
  } else {
    const database = await openStockDatabase(config.databaseUrl, { createDatabase: mayCreateDatabase(config), logger });
    try {
      const applied = await database.migrate();
      logger.info(applied.length > 0 ? `applied ${applied.join(', ')}` : 'nothing to apply: the schema is up to date', {
        migrations: applied,
      });
    } finally {
      await database.close();
    }
  }
  process.exit(0);
});
