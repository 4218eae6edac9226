import type { Handlers, StoredProduct } from './raw-http';

const STOCK_MAX = 2147483647;

/** A new product's stock settings when its body names none: no backorders, no low-stock alert. */
const NO_SETTINGS = { backorderLimit: 0, backorderedQuantity: 0, lowStockThreshold: 0 };

/** The products in a Map, the work every in-memory ceiling does: no SQL, no copies beyond the one a write makes. */
export function mapHandlers(): Handlers {
  const products = new Map<number, StoredProduct>();
  let lastId = 0;
  return {
    getOne: (id) => products.get(id),
    page: (after, limit) => {
      const page = [];
      for (const product of products.values()) {
        if (page.length === limit) break;
        if (product.id > after) page.push(product);
      }
      return page;
    },
    create: (body) => {
      const product = { ...body, id: ++lastId, ...NO_SETTINGS, reservedQuantity: 0, version: 1 };
      products.set(product.id, product);
      return product;
    },
    update: (id, body) => {
      const current = products.get(id);
      if (!current) return undefined;
      if (body.quantityInStock < current.reservedQuantity) return 'refused';
      const { backorderLimit, backorderedQuantity, lowStockThreshold, reservedQuantity } = current;
      const settings = { backorderLimit, backorderedQuantity, lowStockThreshold };
      const product = { ...body, id, ...settings, reservedQuantity, version: current.version + 1 };
      products.set(id, product);
      return product;
    },
    adjust: (id, delta) => {
      const current = products.get(id);
      if (!current) return undefined;
      const next = current.quantityInStock + delta;
      if (next < current.reservedQuantity || next > STOCK_MAX) return 'refused';
      const product = { ...current, quantityInStock: next, version: current.version + 1 };
      products.set(id, product);
      return product;
    },
  };
}
