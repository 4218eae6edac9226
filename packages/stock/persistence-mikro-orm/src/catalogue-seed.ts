import type { SqlSession } from '@platform/mikro-orm';
import { DEFAULT_LOCATION_ID } from '@stock/domain';

/** One product in this many has the rare word of seeded names, so a search for it is selective at any size. */
export const SEED_RARE_EVERY = 1000;
export const SEED_RARE_WORD = 'zephyr';

/**
 * Adds `count` generated products (with their default-location levels and `created` movements) in one statement or
 * two, for the search plan tests and the scale bench: names mix a colour, a kind and a number (every
 * SEED_RARE_EVERY-th carries SEED_RARE_WORD), prices spread over 0.00–999.99, stock 0–49 against a low threshold of
 * 10 (about a fifth low, a fiftieth out), SKUs SEED-<n>. `from` numbers them on from an earlier seed.
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
    ].join(' || ');
  const stock = (n: string) => `(${n} * 31) % 50`;
  if (session.dialect === 'postgresql') {
    await session.run(
      `with "created" as (
        insert into "product" ("name", "description", "price", "quantity_in_stock", "low_stock_threshold", "sku")
        select ${name('n')}, 'seeded product ' || n, ((n::bigint * 7919) % 100000) / 100.0, ${stock('n')}, 10, 'SEED-' || n
        from generate_series(?::integer + 1, ?::integer + ?::integer) as n
        returning "id", "quantity_in_stock")
      insert into "stock_level" ("product_id", "location_id", "on_hand")
      select "id", ${DEFAULT_LOCATION_ID}, "quantity_in_stock" from "created"`,
      [from, from, count],
    );
    return;
  }
  const [{ last }] = (await session.all('select coalesce(max("id"), 0) as "last" from "product"')) as [
    { last: number },
  ];
  await session.run(
    `insert into "product" ("name", "description", "price_cents", "quantity_in_stock", "low_stock_threshold", "sku")
    with recursive "seq" ("n") as (select cast(? as integer) + 1 union all select "n" + 1 from "seq" where "n" < cast(? as integer) + ?)
    select ${name('n')}, 'seeded product ' || n, (n * 7919) % 100000, ${stock('n')}, 10, 'SEED-' || n from "seq"`,
    [from, from, count],
  );
  await session.run(
    `insert into "stock_level" ("product_id", "location_id", "on_hand")
    select "id", ${DEFAULT_LOCATION_ID}, "quantity_in_stock" from "product" where "id" > ?`,
    [last],
  );
}
