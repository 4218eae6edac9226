import type { SqlSession } from '@platform/persistence';
import { ProductStock } from '@stock/domain';

/** One product in this many has the rare word of seeded names, so a search for it is selective at any size. */
export const SEED_RARE_EVERY = 1000;
export const SEED_RARE_WORD = 'zephyr';
/** One product in this many has the common word, so a search for it matches a tenth of the catalogue at any size. */
export const SEED_COMMON_EVERY = 10;
/** No other seeded text contains it, nor any of its trigrams. */
export const SEED_COMMON_WORD = 'walnut';

/**
 * Adds `count` generated products (each with its first level and the opening movement of its ledger, as
 * ProductStock.opening has them) in one statement or three, for the search plan tests and the scale bench: names mix
 * a colour, a kind and a number (every SEED_RARE_EVERY-th carries SEED_RARE_WORD, every
 * SEED_COMMON_EVERY-th, from the 7th, SEED_COMMON_WORD), prices spread over 0.00–999.99,
 * stock 0–49 against a low threshold of 10 (about a fifth low, a fiftieth out), SKUs SEED-<n>.
 * `from` numbers them on from an earlier seed.
 */
export async function seedCatalogue(session: SqlSession, count: number, from = 0): Promise<void> {
  const name = (n: string) =>
    [
      `'product '`,
      n,
      `' '`,
      `(case ${n} % 5 when 0 then 'red' when 1 then 'green' when 2 then 'blue' when 3 then 'black' else 'white' end)`,
      `' '`,
      `(case ${n} % 4 when 0 then 'keyboard' when 1 then 'lamp' when 2 then 'cable' else 'chair' end)`,
      `(case when ${n} % ${SEED_RARE_EVERY} = 0 then ' ${SEED_RARE_WORD}' else '' end)`,
      `(case when ${n} % ${SEED_COMMON_EVERY} = 7 then ' ${SEED_COMMON_WORD}' else '' end)`,
    ].join(' || ');
  const stock = (n: string) => `(${n} * 31) % 50`;
  // Where a product's stock starts and how its ledger opens: the domain's, whatever the stock.
  const { locationId, kind, sequence } = ProductStock.opening({ quantityInStock: 0 });
  const opening = (table: string) =>
    `select "id", ${locationId}, '${kind}', "quantity_in_stock", 0, "quantity_in_stock", 0, ${sequence}, ? from ${table}`;
  const movementColumns = `"product_id", "location_id", "kind", "quantity_delta", "reserved_delta", "quantity_after", "reserved_after", "sequence", "at"`;
  if (session.dialect === 'postgresql') {
    await session.run(
      `with "created" as (
        insert into "product" ("name", "description", "price", "quantity_in_stock", "low_stock_threshold", "sku", "movement_sequence")
        select ${name('n')}, 'seeded product ' || n, ((n::bigint * 7919) % 100000) / 100.0, ${stock('n')}, 10, 'SEED-' || n, ${sequence}
        from generate_series(?::integer + 1, ?::integer + ?::integer) as n
        returning "id", "quantity_in_stock"),
      "level" as (
        insert into "stock_level" ("product_id", "location_id", "on_hand")
        select "id", ${locationId}, "quantity_in_stock" from "created")
      insert into "stock_movement" (${movementColumns}) ${opening('"created"')}`,
      [from, from, count, new Date()],
    );
    return;
  }
  const [{ last }] = (await session.all('select coalesce(max("id"), 0) as "last" from "product"')) as [
    { last: number },
  ];
  await session.run(
    `insert into "product" ("name", "description", "price_cents", "quantity_in_stock", "low_stock_threshold", "sku", "movement_sequence")
    with recursive "seq" ("n") as (select cast(? as integer) + 1 union all select "n" + 1 from "seq" where "n" < cast(? as integer) + ?)
    select ${name('n')}, 'seeded product ' || n, (n * 7919) % 100000, ${stock('n')}, 10, 'SEED-' || n, ${sequence} from "seq"`,
    [from, from, count],
  );
  await session.run(
    `insert into "stock_level" ("product_id", "location_id", "on_hand")
    select "id", ${locationId}, "quantity_in_stock" from "product" where "id" > ?`,
    [last],
  );
  await session.run(`insert into "stock_movement" (${movementColumns}) ${opening('"product" where "id" > ?')}`, [
    new Date(),
    last,
  ]);
}
