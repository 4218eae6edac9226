import { MikroOrmPersistence } from '../../../packages/persistence-mikro-orm/src';
import pg from 'pg';
const url = 'postgres://postgres@127.0.0.1:5432/prof';
const p = await MikroOrmPersistence.open(url, { poolSize: 10 });
async function run(name: string, fn: () => Promise<unknown>) {
  for (let i = 0; i < 500; i++) await fn();
  const t = performance.now(); let n = 0;
  await Promise.all(Array.from({ length: 32 }, async () => { while (performance.now() - t < 2000) { await fn(); n++; } }));
  console.log(name.padEnd(30), Math.round(n / ((performance.now() - t) / 1000)), 'ops/s');
}
await run('mikro findById', () => p.repository.findById(5));
await run('mikro findById in scope', () => p.requestScope(() => p.repository.findById(5)));
await run('mikro em.execute raw', () => (p.orm.em.fork() as any).execute('select * from product where id = ?', [5]));
const knex = (p.orm.em.getConnection() as any).getKnex();
await run('knex raw', () => knex.raw('select * from product where id = ?', [5]));
const pool = new pg.Pool({ connectionString: url, max: 10 });
await run('pg pool prepared', () => pool.query({ name: 'g', text: 'select * from product where id = $1', values: [5] }));
await run('pg pool unprepared', () => pool.query('select * from product where id = $1', [5]));
await pool.end(); await p.close();
