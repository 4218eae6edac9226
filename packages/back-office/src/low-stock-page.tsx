import { callApi } from './api';
import { ProblemMessage } from './problem-message';
import { BASE, Link } from './router';
import { type Session, STOCK } from './session';
import type { Product } from './types';
import { useLoaded } from './use-api';

/** Every product whose available stock is under its low-stock threshold, each linking to its page. */
export function LowStockPage({ session }: { session: Session }) {
  const [products] = useLoaded(() => callApi<Product[]>(session, STOCK, '/api/products?stockState=low'), 'low');
  return (
    <>
      <h1>Low stock</h1>
      {products.state === 'loading' && <p role="status">Loading…</p>}
      <ProblemMessage problem={products.state === 'failed' ? products.problem : undefined} />
      {products.state === 'loaded' &&
        (products.value.body.length === 0 ? (
          <p>No product is low.</p>
        ) : (
          <table>
            <caption className="visually-hidden">Low stock</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col" className="number">
                  Available
                </th>
                <th scope="col" className="number">
                  Threshold
                </th>
              </tr>
            </thead>
            <tbody>
              {products.value.body.map((product) => (
                <tr key={product.id}>
                  <td>
                    <Link href={`${BASE}/products/${product.id}`}>{product.name}</Link>
                  </td>
                  <td className="number">{product.availableQuantity}</td>
                  <td className="number">{product.lowStockThreshold}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </>
  );
}
