import { createScratchDatabase, outboxStoreContract } from '@platform/test-kit';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database, type Dialect, MikroOrmOutbox, outboxMigrations, outboxMessageSchema } from '../src';

chai.use(chaiAsPromised);
const { expect } = chai;

const MIGRATIONS = {
  postgresql: outboxMigrations('postgresql'),
  sqlite: outboxMigrations('sqlite'),
};

const openOutboxDatabase = (url: string) =>
  Database.open(url, { entities: (d) => [outboxMessageSchema(d)], migrations: MIGRATIONS, createDatabase: true });

async function scratch(
  dialect: Dialect,
  context: Mocha.Context,
): Promise<{ url: string; cleanUp: () => Promise<void> }> {
  if (dialect === 'postgresql') {
    const database = await createScratchDatabase(context);
    return { url: database.url, cleanUp: database.drop };
  }
  const directory = mkdtempSync(join(tmpdir(), 'platform-outbox-'));
  return {
    url: `sqlite:${join(directory, 'outbox.db')}`,
    cleanUp: async () => rmSync(directory, { recursive: true, force: true }),
  };
}

for (const dialect of ['sqlite', 'postgresql'] as const) {
  outboxStoreContract(`MikroORM on ${dialect}`, async (context) => {
    const { url, cleanUp } = await scratch(dialect, context);
    const database = await openOutboxDatabase(url);
    await database.migrate();
    // Another instance's relay: its own pool, so PostgreSQL sees two clients competing for rows.
    const other = await openOutboxDatabase(url);
    return {
      write: (work) => database.transaction((session) => work(new MikroOrmOutbox(session))),
      store: new MikroOrmOutbox(database.session),
      otherStore: new MikroOrmOutbox(other.session),
      reset: async () => void (await database.session.run('delete from "outbox_message"')),
      close: async () => {
        await other.close();
        await database.close();
        await cleanUp();
      },
    };
  });

  describe(`the outbox table on ${dialect}`, () => {
    it('is what its mapping says: the schema generator finds nothing to change after the migration', async function () {
      const { url, cleanUp } = await scratch(dialect, this);
      const database = await openOutboxDatabase(url);
      try {
        await database.migrate();
        const drift = await database.orm.schema.getUpdateSchemaSQL({ wrap: false });
        expect(drift.trim()).to.equal('');
      } finally {
        await database.close();
        await cleanUp();
      }
    });
  });
}
