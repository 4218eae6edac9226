import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { HOT_PRODUCT_STOCK } from '../workloads';
import type { Handlers, StoredProduct } from './raw-http';

/**
 * The least SQL a ledgered stock change needs (issue 31): a level changed
 * under its guard (on hand − reserved stays ≥ 0) and, under the same row lock,
 * the movement that records it, numbered in its product's ledger. On tables
 * of its own (raw_ledger_level, raw_ledger_movement), not the service's: theirs
 * carry triggers that would add work to the floor this is.
 *
 * The ledger's counter is the level's own column: the bench's hot product
 * keeps its stock at one location, so its level's counter is its product's.
 * A product at several locations would need the counter on a row of its own
 * (one more row written per change): the service's cost, not the floor's.
 * The movement's key is (product, sequence), the order a product's ledger is
 * read in: its one index, which also refuses a number given twice.
 *
 * It serves the stock −1 on the hot row and a GET of a product's stock (the
 * harness reads the hot product's to check every −1 it counted was taken);
 * nothing else.
 */

/** The default location, where the hot product's stock is (DEFAULT_LOCATION_ID). */
const DEFAULT_LOCATION = 1;
/** The hot product (workloads.ts): the one row the workload changes. */
const HOT_PRODUCT = 1;

/** A level's figures after a change (or as read), as both stores return them. */
interface LevelRow {
  on_hand: number;
  reserved: number;
  movement_sequence: number | string;
}

/**
 * A level answered as the service answers a product: the baseline keeps no
 * details, so its answer has the service's shape and about its size (the
 * seed's name, no description), its figures the level's, its version the
 * ledger's last number.
 */
const asProduct = (id: number, level: LevelRow): StoredProduct => ({
  id,
  name: `Product ${id}`,
  description: '',
  price: 1,
  quantityInStock: level.on_hand,
  reservedQuantity: level.reserved,
  backorderLimit: 0,
  backorderedQuantity: 0,
  lowStockThreshold: 0,
  version: Number(level.movement_sequence),
});

const notServed = (): never => {
  throw new Error('a ledgered baseline serves the stock −1 and GET one only');
};

/** What a movement records beside its figures, as the service's requests make it: their own id, no caller's token. */
const context = () => ({ requestId: randomUUID(), actor: 'anonymous', at: new Date() });

const PG_TABLES = `
  drop table if exists raw_ledger_movement, raw_ledger_level;
  create table raw_ledger_level (
    product_id integer not null,
    location_id integer not null,
    on_hand integer not null,
    reserved integer not null default 0,
    movement_sequence bigint not null default 0,
    primary key (product_id, location_id),
    check (reserved >= 0 and reserved <= on_hand)
  );
  create table raw_ledger_movement (
    product_id integer not null,
    location_id integer not null,
    kind varchar(20) not null,
    quantity_delta bigint not null,
    reserved_delta bigint not null,
    quantity_after integer not null,
    reserved_after integer not null,
    sequence bigint not null,
    request_id varchar(128),
    actor text,
    at timestamptz not null,
    primary key (product_id, sequence)
  );
  insert into raw_ledger_level (product_id, location_id, on_hand) values (${HOT_PRODUCT}, ${DEFAULT_LOCATION}, ${HOT_PRODUCT_STOCK});
`;

/** One statement: the guarded update moves the counter, and the movement is inserted from the row it returns. */
const PG_ADJUST = {
  name: 'raw_ledger_adjust',
  text: `with level as (
    update raw_ledger_level set on_hand = on_hand + $3, movement_sequence = movement_sequence + 1
    where product_id = $1 and location_id = $2 and on_hand + $3 >= reserved
    returning product_id, location_id, on_hand, reserved, movement_sequence
  )
  insert into raw_ledger_movement (product_id, location_id, kind, quantity_delta, reserved_delta, quantity_after,
    reserved_after, sequence, request_id, actor, at)
  select product_id, location_id, 'adjusted', $3, 0, on_hand, reserved, movement_sequence, $4, $5, $6 from level
  returning quantity_after as on_hand, reserved_after as reserved, sequence as movement_sequence`,
};

const PG_LEVEL = {
  name: 'raw_ledger_level',
  text: 'select on_hand, reserved, movement_sequence from raw_ledger_level where product_id = $1 and location_id = $2',
};

/** node:http + pg's ledgered −1, on its own tables made afresh, as named (prepared) statements. */
export async function pgLedger(pool: pg.Pool): Promise<Handlers> {
  await pool.query(PG_TABLES);
  const level = async (id: number) =>
    (await pool.query<LevelRow>({ ...PG_LEVEL, values: [id, DEFAULT_LOCATION] })).rows[0];
  return {
    getOne: async (id) => {
      const row = await level(id);
      return row && asProduct(id, row);
    },
    adjust: async (id, delta) => {
      const { requestId, actor, at } = context();
      const values = [id, DEFAULT_LOCATION, delta, requestId, actor, at];
      const [changed] = (await pool.query<LevelRow>({ ...PG_ADJUST, values })).rows;
      if (changed) return asProduct(id, changed);
      // Only a refusal reads again: a missing level is a 404, a guard that held it back a 409.
      return (await level(id)) ? 'refused' : undefined;
    },
    page: notServed,
    create: notServed,
    update: notServed,
  };
}

/** The service's busy timeout on SQLite (its default statement timeout). */
const BUSY_TIMEOUT_MS = 5000;

/**
 * The file opened as the service opens it (sqlite-connection.ts): the same
 * busy timeout, WAL and synchronous = normal.
 */
export function openLedgerSqlite(url: string): Database.Database {
  const db = new Database(url.replace(/^sqlite:/, ''), { timeout: BUSY_TIMEOUT_MS });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('journal_mode = wal');
  db.pragma('synchronous = normal');
  return db;
}

// Without rowid: each table is the one b-tree of its key, a change looks its level up once and inserts its movement
// once (a rowid table with a composite key would keep that key in a second b-tree).
const SQLITE_TABLES = `
  drop table if exists raw_ledger_movement;
  drop table if exists raw_ledger_level;
  create table raw_ledger_level (
    product_id integer not null,
    location_id integer not null,
    on_hand integer not null,
    reserved integer not null default 0,
    movement_sequence integer not null default 0,
    primary key (product_id, location_id),
    check (reserved >= 0 and reserved <= on_hand)
  ) without rowid;
  create table raw_ledger_movement (
    product_id integer not null,
    location_id integer not null,
    kind text not null,
    quantity_delta integer not null,
    reserved_delta integer not null,
    quantity_after integer not null,
    reserved_after integer not null,
    sequence integer not null,
    request_id text,
    actor text,
    at integer not null,
    primary key (product_id, sequence)
  ) without rowid;
  insert into raw_ledger_level (product_id, location_id, on_hand) values (${HOT_PRODUCT}, ${DEFAULT_LOCATION}, ${HOT_PRODUCT_STOCK});
`;

/**
 * node:http + better-sqlite3's ledgered −1, on its own tables made afresh:
 * SQLite has no data-modifying CTE, so the guarded update (returning the
 * level) and the movement's insert are two cached statements in one
 * transaction (db.transaction). Times are epoch ms, as the service stores them.
 */
export function sqliteLedger(db: Database.Database): Handlers {
  db.exec(SQLITE_TABLES);
  // Anonymous and positional, the delta given twice: better-sqlite3 binds ?NNN only by name, from an object per call.
  const update = db.prepare<[number, number, number, number], LevelRow>(
    `update raw_ledger_level set on_hand = on_hand + ?, movement_sequence = movement_sequence + 1
     where product_id = ? and location_id = ? and on_hand + ? >= reserved
     returning on_hand, reserved, movement_sequence`,
  );
  const insert = db.prepare(
    `insert into raw_ledger_movement (product_id, location_id, kind, quantity_delta, reserved_delta, quantity_after,
       reserved_after, sequence, request_id, actor, at)
     values (?, ?, 'adjusted', ?, 0, ?, ?, ?, ?, ?, ?)`,
  );
  const read = db.prepare<[number, number], LevelRow>(
    'select on_hand, reserved, movement_sequence from raw_ledger_level where product_id = ? and location_id = ?',
  );
  const ledgered = db.transaction((id: number, delta: number): LevelRow | undefined => {
    const level = update.get(delta, id, DEFAULT_LOCATION, delta);
    if (!level) return undefined;
    const { requestId, actor, at } = context();
    const { on_hand, reserved, movement_sequence } = level;
    insert.run(id, DEFAULT_LOCATION, delta, on_hand, reserved, movement_sequence, requestId, actor, at.getTime());
    return level;
  });
  return {
    getOne: (id) => {
      const row = read.get(id, DEFAULT_LOCATION);
      return row && asProduct(id, row);
    },
    adjust: (id, delta) => {
      const changed = ledgered(id, delta);
      if (changed) return asProduct(id, changed);
      return read.get(id, DEFAULT_LOCATION) ? 'refused' : undefined;
    },
    page: notServed,
    create: notServed,
    update: notServed,
  };
}
