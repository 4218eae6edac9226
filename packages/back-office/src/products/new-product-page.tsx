import { BASE, navigate } from '../router';
import type { Session } from '../session';
import { ProductForm } from './product-form';

/** A new product; once created, its page. */
export function NewProductPage({ session }: { session: Session }) {
  return (
    <>
      <h1>New product</h1>
      <ProductForm session={session} onSaved={({ product }) => navigate(`${BASE}/products/${product.id}`)} />
    </>
  );
}
