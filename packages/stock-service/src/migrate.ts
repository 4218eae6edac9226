import { loadConfig } from './config';
import { openPersistence } from './persistence';

const { databaseUrl, idempotencyTtlSeconds } = loadConfig();
const persistence = await openPersistence(databaseUrl, { idempotencyTtlMs: idempotencyTtlSeconds * 1000 });
try {
  const applied = await persistence.migrate();
  console.log(applied.length > 0 ? `Applied: ${applied.join(', ')}` : 'Nothing to apply: the schema is up to date.');
} finally {
  await persistence.close();
}
