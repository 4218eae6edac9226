import Fastify from 'fastify';
import { pgPool, pgQueries } from './pg-queries';
import { toBodyProduct } from './raw-http';

/** Fastify + pg, the same statements: a sanity check that the raw baseline is not unfairly thin. */
const queries = pgQueries(pgPool());
const app = Fastify({ logger: false });
app.get<{ Querystring: { after?: string; limit?: string } }>('/api/products', (req) => queries.page(Number(req.query.after ?? 0), Number(req.query.limit ?? 100)));
app.get<{ Params: { id: string } }>('/api/products/:id', async (req, reply) => (await queries.getOne(Number(req.params.id))) ?? reply.code(404).send({ status: 404 }));
app.post('/api/products', async (req, reply) => {
  const body = toBodyProduct(req.body);
  if (!body) return reply.code(400).send({ status: 400 });
  const { id, json } = await queries.create(body);
  return reply.code(201).header('location', `/api/products/${id}`).send(json);
});
app.put<{ Params: { id: string } }>('/api/products/:id', async (req, reply) => {
  const body = toBodyProduct(req.body);
  if (!body) return reply.code(400).send({ status: 400 });
  return (await queries.update(Number(req.params.id), body)) ?? reply.code(404).send({ status: 404 });
});
app.post<{ Params: { id: string }; Body: { delta: number } }>('/api/products/:id/stock-adjustments', async (req, reply) => {
  const product = await queries.adjust(Number(req.params.id), req.body.delta);
  if (product === undefined) return reply.code(404).send({ status: 404 });
  return product === 'refused' ? reply.code(409).send({ status: 409 }) : product;
});
const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
console.log(JSON.stringify({ message: 'listening', port: Number(new URL(address).port) }));
