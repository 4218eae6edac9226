import type { Database, SqlSession } from '@platform/persistence';
import { scratchUrl } from '@platform/test-kit';
import { DEFAULT_LOCATION_ID, Money, type Product, type ProductSearch } from '@stock/domain';
import { expect } from 'chai';
import {
  openStockDatabase,
  RELEVANCE_RANKS,
  relevanceStatement,
  SEED_COMMON_WORD,
  SEED_RARE_WORD,
  searchStatement,
  seedCatalogue,
  SQLITE_COMMON_TEXT_MATCHES,
  SqlProductRepository,
  sqliteTextMatches,
} from '../src';
import { aContext, aProduct } from '@stock/domain/testing';

const PRODUCTS = 20_000;
const ids = (products: readonly Product[]) => products.map((product) => product.id);

/** A search of the bench and the docs, and the index each database must answer it with (undefined: any index). */
interface PlannedSearch {
  readonly title: string;
  readonly query: ProductSearch;
  readonly index: { readonly postgresql?: string; readonly sqlite?: string };
  /** The index walks the sort's order: a page is read without sorting the matches. */
  readonly ordered?: boolean;
  /** `sort=relevance`: the statement of this rank (relevanceStatement). */
  readonly rank?: number;
  /** SQLite: the statement for a text counted common (searchStatement's textIsCommon). */
  readonly common?: boolean;
}

/** Each rank's field's trigram index, for a text rare enough that the planner takes it. */
const RANK_TRGM_INDEXES = ['product_name_trgm_index', 'product_sku_trgm_index', 'product_description_trgm_index'];

const page = { limit: 100 } as const;
const SEARCHES: PlannedSearch[] = [
  {
    title: `q=${SEED_RARE_WORD}`,
    query: { ...page, q: SEED_RARE_WORD, sort: 'id' },
    index: { postgresql: 'product_name_trgm_index', sqlite: 'product_search VIRTUAL TABLE' },
  },
  {
    title: `q=${SEED_RARE_WORD} with sort=-price, after a position`,
    query: { ...page, q: SEED_RARE_WORD, sort: '-price', after: { key: 50_000, id: 10 } },
    index: { postgresql: 'product_name_trgm_index', sqlite: 'product_search VIRTUAL TABLE' },
  },
  ...RANK_TRGM_INDEXES.map((index, rank) => ({
    title: `q=${SEED_RARE_WORD} with sort=relevance, rank ${rank}`,
    query: { ...page, q: SEED_RARE_WORD, sort: 'relevance' as const },
    index: { postgresql: index, sqlite: 'product_search VIRTUAL TABLE' },
    rank,
  })),
  {
    title: `q=${SEED_COMMON_WORD} (a tenth of the products) with sort=relevance, its first rank`,
    query: { ...page, q: SEED_COMMON_WORD, sort: 'relevance' },
    index: { postgresql: 'product_pkey', sqlite: 'product_search VIRTUAL TABLE' },
    ordered: true,
    rank: 0,
  },
  {
    title: `q=${SEED_COMMON_WORD} with sort=relevance, after a position in its first rank`,
    query: { ...page, q: SEED_COMMON_WORD, sort: 'relevance', after: { key: 0, id: 5007 } },
    index: { postgresql: 'product_pkey', sqlite: 'product_search VIRTUAL TABLE' },
    ordered: true,
    rank: 0,
  },
  {
    title: `q=${SEED_COMMON_WORD} with sort=name`,
    query: { ...page, q: SEED_COMMON_WORD, sort: 'name' },
    // PostgreSQL walks the name's index and stops at the page; SQLite sorts the matches FTS5 answers.
    index: { postgresql: 'product_name_id_index', sqlite: 'product_search VIRTUAL TABLE' },
  },
  {
    title: `q=${SEED_COMMON_WORD} with sort=name, the text counted common`,
    query: { ...page, q: SEED_COMMON_WORD, sort: 'name' },
    index: { postgresql: 'product_name_id_index', sqlite: 'product_name_id_index' },
    ordered: true,
    common: true,
  },
  {
    title: `q=${SEED_COMMON_WORD} with sort=-price after a position, the text counted common`,
    query: { ...page, q: SEED_COMMON_WORD, sort: '-price', after: { key: 50_000, id: 10 } },
    index: { postgresql: 'product_price_desc_id_index', sqlite: 'product_price_desc_id_index' },
    ordered: true,
    common: true,
  },
  {
    title: `q=${SEED_COMMON_WORD} with sort=id`,
    query: { ...page, q: SEED_COMMON_WORD, sort: 'id' },
    index: { postgresql: 'product_pkey', sqlite: 'product_search VIRTUAL TABLE' },
    ordered: true,
  },
  ...(['name', '-name', 'price', '-price', 'available', '-available'] as const).map((sort) => ({
    title: `sort=${sort}`,
    query: { ...page, sort },
    index: {
      postgresql: `product_${sort.replace('-', '')}_${sort.startsWith('-') ? 'desc_' : ''}id_index`,
      sqlite: `product_${sort.replace('-', '')}_${sort.startsWith('-') ? 'desc_' : ''}id_index`,
    },
    ordered: true,
  })),
  {
    title: 'sort=price after a position',
    query: { ...page, sort: 'price', after: { key: 12_345, id: 77 } },
    index: { postgresql: 'product_price_id_index', sqlite: 'product_price_id_index' },
    ordered: true,
  },
  {
    title: 'sort=-available after a position',
    query: { ...page, sort: '-available', after: { key: 20, id: 77 } },
    index: { postgresql: 'product_available_desc_id_index', sqlite: 'product_available_desc_id_index' },
    ordered: true,
  },
  {
    title: 'stockState=low',
    query: { ...page, stockState: 'low', sort: 'id' },
    index: { postgresql: 'product_stock_state_id_index', sqlite: 'product_stock_state_id_index' },
    ordered: true,
  },
  {
    title: 'stockState=low after a position',
    query: { ...page, stockState: 'low', sort: 'id', after: { key: 500, id: 500 } },
    index: { postgresql: 'product_stock_state_id_index', sqlite: 'product_stock_state_id_index' },
    ordered: true,
  },
  {
    title: 'minPrice and maxPrice, sort=price',
    query: {
      ...page,
      minPrice: Money.fromDecimalString('10.00'),
      maxPrice: Money.fromDecimalString('12.00'),
      sort: 'price',
    },
    // A narrow range: PostgreSQL may read it through a bitmap of the index and sort it.
    index: { postgresql: 'product_price', sqlite: 'product_price' },
  },
  { title: 'maxPrice', query: { ...page, maxPrice: Money.fromDecimalString('1.00'), sort: 'id' }, index: {} },
  { title: 'locationId', query: { ...page, locationId: DEFAULT_LOCATION_ID, sort: 'id' }, index: {} },
  {
    title: 'every filter, sort=name',
    query: {
      ...page,
      q: 'red',
      minPrice: Money.fromDecimalString('1.00'),
      maxPrice: Money.fromDecimalString('500.00'),
      stockState: 'in',
      locationId: DEFAULT_LOCATION_ID,
      sort: 'name',
    },
    index: {},
  },
];

/** Every node of a PostgreSQL JSON plan. */
/** A node of `explain (format json)`, with the fields read here. */
interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly Plans?: PlanNode[];
}

function nodesOf(plan: PlanNode): PlanNode[] {
  const children = plan.Plans ?? [];
  return [plan, ...children.flatMap(nodesOf)];
}

/** PostgreSQL's plan, with sequential scans priced out: what is left shows whether an index can answer. */
async function postgresPlan(database: Database, sql: string, params: unknown[]): Promise<string[]> {
  return database.transaction(async (session: SqlSession) => {
    await session.run('set local enable_seqscan = off');
    const [row] = await session.all(`explain (format json) ${sql}`, params);
    const plan = (row!['QUERY PLAN'] as [{ Plan: PlanNode }])[0].Plan;
    return nodesOf(plan).map(
      (node) => `${node['Node Type']} ${node['Relation Name'] ?? ''} ${node['Index Name'] ?? ''}`,
    );
  });
}

async function sqlitePlan(session: SqlSession, sql: string, params: unknown[]): Promise<string[]> {
  const rows = await session.all(`explain query plan ${sql}`, params);
  return rows.map((row) => String(row.detail));
}

/** A plan line that reads the whole product table: a sequential scan, or SQLite's SCAN with no index. */
const FULL_SCAN = {
  postgresql: /^Seq Scan (product|stock_level) /,
  sqlite: /^SCAN (product|stock_level)( |$)(?!.*(USING|VIRTUAL TABLE))/,
};

describe('catalogue search plans', () => {
  for (const dialect of ['postgresql', 'sqlite'] as const) {
    describe(`on ${dialect}, with ${PRODUCTS} products`, () => {
      let database: Database;
      let cleanUp: () => Promise<void>;

      before(async function () {
        this.timeout(120_000);
        const scratch = await scratchUrl(dialect, this, 'stock');
        cleanUp = scratch.cleanUp;
        database = await openStockDatabase(scratch.url, { createDatabase: true, queryTimeoutMs: 60_000 });
        await database.migrate();
        await database.transaction((session) => seedCatalogue(session, PRODUCTS));
        // What PostgreSQL's autovacuum would do after such a load: statistics, and the GIN indexes' pending lists
        // merged (rows inserted after an index was built wait there, and a planner prices a long list high). SQLite
        // gathers statistics only when asked, and the service never asks.
        if (dialect === 'postgresql') await database.session.run('vacuum analyze "product"');
      });
      after(async () => {
        await database?.close();
        await cleanUp?.();
      });

      const planOf = (sql: string, params: unknown[]) =>
        dialect === 'postgresql' ? postgresPlan(database, sql, params) : sqlitePlan(database.session, sql, params);

      for (const { title, query, index, ordered, rank, common } of SEARCHES) {
        it(`answers ${title} with ${index[dialect] ?? 'an index'}, never a full scan`, async () => {
          const { sql, params } =
            rank === undefined ? searchStatement(dialect, query, common) : relevanceStatement(dialect, query, rank);
          const plan = await planOf(sql, params);
          if (process.env.SHOW_PLANS) console.log(`${dialect} ${title}:\n  ${plan.join('\n  ')}`);
          expect(
            plan.filter((line) => FULL_SCAN[dialect].test(line)),
            plan.join('\n'),
          ).to.deep.equal([]);
          if (index[dialect]) expect(plan.join('\n')).to.include(index[dialect]);
          if (ordered)
            expect(plan.join('\n'), 'no sort of every match').not.to.match(/USE TEMP B-TREE FOR ORDER BY|^Sort /m);
        });
      }

      it('finds a SKU through its unique index on lower("sku")', async () => {
        const plan = await planOf('select "id" from "product" where lower("sku") = lower(?)', ['seed-42']);
        expect(plan.join('\n')).to.include('product_sku_unique');
        const [row] = await database.session.all('select "id" from "product" where lower("sku") = lower(?)', [
          'seed-42',
        ]);
        expect(row).to.not.equal(undefined);
      });

      it('counts the common word common and the rare one not, and answers either plan alike', async () => {
        const repository = new SqlProductRepository(database.session);
        for (const [word, every] of [
          [SEED_RARE_WORD, 1000],
          [SEED_COMMON_WORD, 10],
        ] as const) {
          const { statement, params } = sqliteTextMatches(word);
          if (dialect === 'sqlite')
            expect(
              Number((await database.session.all(statement, params))[0]!.matches) >= SQLITE_COMMON_TEXT_MATCHES,
            ).to.equal(every === 10);
          for (const sort of ['name', '-price'] as const) {
            const query = { q: word, sort, limit: 300 };
            const [sorted, walked] = await Promise.all(
              [false, true].map(async (common) => {
                const search = searchStatement(dialect, query, common);
                return (await database.session.all(search.statement, search.params)).map((row) => Number(row.id));
              }),
            );
            expect(walked, `${word}, ${sort}`).to.deep.equal(sorted);
            expect(ids(await repository.search(query)), `${word}, ${sort}`).to.deep.equal(sorted);
          }
        }
      });

      if (dialect === 'sqlite')
        it('finds a common text in a row LIKE cannot fold, through FTS5: the Kelvin sign is a k to it', async () => {
          const { id } = await database.transaction((session) =>
            new SqlProductRepository(session).add(aProduct({ name: '\u212AEYBOARD', description: '' }), aContext()),
          );
          const search = searchStatement(dialect, { q: 'keyboard', sort: '-name', limit: 1 }, true);
          expect(
            (await database.session.all(search.statement, search.params)).map((row) => Number(row.id)),
          ).to.deep.equal([id]);
          await database.session.run('delete from "product" where "id" = ?', [id]);
        });

      it('answers what the seeded rows hold: the rare word in one product in a thousand, the common in ten', async () => {
        for (const [word, every] of [
          [SEED_RARE_WORD, 1000],
          [SEED_COMMON_WORD, 10],
        ] as const) {
          const { statement, params } = searchStatement(dialect, { q: word, sort: 'id', limit: PRODUCTS });
          expect(await database.session.all(statement, params), word).to.have.length(PRODUCTS / every);
          const ranks = await Promise.all(
            Array.from({ length: RELEVANCE_RANKS }, (_, rank) => {
              const ranked = relevanceStatement(dialect, { q: word, sort: 'relevance', limit: PRODUCTS }, rank);
              return database.session.all(ranked.statement, ranked.params);
            }),
          );
          expect(
            ranks.map((rows) => rows.length),
            `${word}: every match in the name's rank`,
          ).to.deep.equal([PRODUCTS / every, 0, 0]);
        }
      });
    });
  }
});
