import { openStockDatabase } from '@stock/persistence-mikro-orm';
import { loadConfig } from './config';

const { databaseUrl } = loadConfig();
if (/^memory:/i.test(databaseUrl)) {
  console.log('Nothing to migrate: memory: keeps no schema.');
} else {
  const database = await openStockDatabase(databaseUrl);
  try {
    const applied = await database.migrate();
    console.log(applied.length > 0 ? `Applied: ${applied.join(', ')}` : 'Nothing to apply: the schema is up to date.');
  } finally {
    await database.close();
  }
}
