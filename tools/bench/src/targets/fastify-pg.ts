import Fastify, { type FastifyReply } from 'fastify';
import { pgPool, pgQueries } from './pg-queries';
import { DEFAULT_LIMIT, etag, nextLink, pageOf, productJson, type StoredProduct, toBodyProduct } from './raw-http';

/** Fastify + pg, the same statements: a sanity check that the raw baseline is not unfairly thin. */
const queries = pgQueries(pgPool());
const app = Fastify({ logger: false });

function answer(reply: FastifyReply, outcome: StoredProduct | 'refused' | undefined, status = 200) {
  if (outcome === undefined) return reply.code(404).send({ status: 404 });
  if (outcome === 'refused') return reply.code(409).send({ status: 409 });
  return reply.code(status).header('etag', etag(outcome)).send(productJson(outcome));
}

app.get<{ Querystring: { after?: string; limit?: string } }>('/api/products', async (req, reply) => {
  const limit = Number(req.query.limit ?? DEFAULT_LIMIT);
  const { items, nextAfter } = pageOf(await queries.page(Number(req.query.after ?? 0), limit + 1), limit);
  if (nextAfter !== undefined) reply.header('link', nextLink(limit, nextAfter));
  return items.map(productJson);
});
app.get<{ Params: { id: string } }>('/api/products/:id', async (req, reply) =>
  answer(reply, await queries.getOne(Number(req.params.id))),
);
app.post('/api/products', async (req, reply) => {
  const body = toBodyProduct(req.body);
  if (!body) return reply.code(400).send({ status: 400 });
  const product = await queries.create(body);
  return answer(reply.header('location', `/api/products/${product.id}`), product, 201);
});
app.put<{ Params: { id: string } }>('/api/products/:id', async (req, reply) => {
  const body = toBodyProduct(req.body);
  if (!body) return reply.code(400).send({ status: 400 });
  return answer(reply, await queries.update(Number(req.params.id), body));
});
app.post<{ Params: { id: string }; Body: { delta: number } }>(
  '/api/products/:id/stock-adjustments',
  async (req, reply) => answer(reply, await queries.adjust(Number(req.params.id), req.body.delta)),
);
const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
console.log(JSON.stringify({ message: 'listening', port: Number(new URL(address).port) }));
