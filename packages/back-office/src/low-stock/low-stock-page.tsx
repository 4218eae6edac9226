import { callApi } from '../api';
import { ProblemMessage } from '../problem-message';
import { COLUMNS, ProductTable } from '../products/product-table';
import { type Session, STOCK } from '../session';
import type { Product } from '../types';
import { useLoaded } from '../use-api';

/**
 * Every product whose available stock is under its low-stock threshold, each linking to its page (where its level at
 * each location shows). The threshold is the product's, over all its locations: the stock API keeps none per location.
 */
export function LowStockPage({ session }: { session: Session }) {
  const [products] = useLoaded(() => callApi<Product[]>(session, STOCK, '/api/products?stockState=low'), 'low');
  return (
    <>
      <h1>Low stock</h1>
      {products.state === 'loading' && <p role="status">Loading…</p>}
      <ProblemMessage problem={products.state === 'failed' ? products.problem : undefined} />
      {products.state === 'loaded' && (
        <ProductTable
          caption="Low stock"
          products={products.value.body}
          columns={[COLUMNS.sku, COLUMNS.onHand, COLUMNS.available, COLUMNS.threshold]}
          empty="No product is low."
        />
      )}
    </>
  );
}
