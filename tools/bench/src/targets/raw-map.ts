import { type BodyProduct, listen, rawServer } from './raw-http';

/** node:http + a Map: the limit for the in-memory adapter. */
interface Stored extends BodyProduct {
  id: number;
  version: number;
}
const products = new Map<number, Stored>();
let lastId = 0;
const json = ({ id, name, description, price, quantityInStock }: Stored) => ({ id, name, description, price, quantityInStock });

listen(
  rawServer({
    getOne: (id) => {
      const product = products.get(id);
      return product && json(product);
    },
    page: (after, limit) => {
      const page = [];
      for (const product of products.values()) {
        if (page.length === limit) break;
        if (product.id > after) page.push(json(product));
      }
      return page;
    },
    create: (body) => {
      const product = { ...body, id: ++lastId, version: 1 };
      products.set(product.id, product);
      return { id: product.id, json: json(product) };
    },
    update: (id, body) => {
      const current = products.get(id);
      if (!current) return undefined;
      const product = { ...body, id, version: current.version + 1 };
      products.set(id, product);
      return json(product);
    },
    adjust: (id, delta) => {
      const current = products.get(id);
      if (!current) return undefined;
      const next = current.quantityInStock + delta;
      if (next < 0 || next > 2147483647) return 'refused';
      const product = { ...current, quantityInStock: next, version: current.version + 1 };
      products.set(id, product);
      return json(product);
    },
  }),
);
