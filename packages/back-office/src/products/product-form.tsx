import { type FormEvent, useState } from 'react';
import { type ApiProblem, callApi } from '../api';
import { ProblemMessage } from '../problem-message';
import { type Session, STOCK } from '../session';
import type { Product } from '../types';
import { asProblem } from '../use-api';

/** The product read for editing, with the ETag that read answered (the version a save must still find). */
export interface Versioned {
  readonly product: Product;
  readonly etag: string;
}

interface Props {
  readonly session: Session;
  /** The product to edit; a new one when absent. */
  readonly editing?: Versioned;
  readonly onSaved: (saved: Versioned) => void;
  /** Reads the product again (after someone else changed it); the form opens on the new version. */
  readonly onReload?: () => void;
}

/**
 * Creates a product, or edits one with If-Match: a save after someone else changed it answers 412, and the form says
 * so and offers to reload the new version rather than overwrite it. A refusal shows here, with its detail.
 */
export function ProductForm({ session, editing, onSaved, onReload }: Props) {
  const product = editing?.product;
  const [name, setName] = useState(product?.name ?? '');
  const [sku, setSku] = useState(product?.sku ?? '');
  const [description, setDescription] = useState(product?.description ?? '');
  const [price, setPrice] = useState(product ? String(product.price) : '');
  const [threshold, setThreshold] = useState(String(product?.lowStockThreshold ?? 0));
  const [quantity, setQuantity] = useState('0');
  const [problem, setProblem] = useState<ApiProblem>();
  const [busy, setBusy] = useState(false);
  const id = product ? `edit-${product.id}` : 'new-product';

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(undefined);
    setBusy(true);
    const body = {
      name,
      sku: sku.trim() === '' ? null : sku.trim(),
      description,
      price: Number(price),
      lowStockThreshold: Number(threshold),
      // A PUT sets quantityInStock (0 when absent): the one read, which the If-Match holds to.
      quantityInStock: product ? product.quantityInStock : Number(quantity),
    };
    try {
      const answer = product
        ? await callApi<Product>(session, STOCK, `/api/products/${product.id}`, {
            method: 'PUT',
            headers: { 'if-match': editing.etag },
            body,
          })
        : await callApi<Product>(session, STOCK, '/api/products', {
            method: 'POST',
            headers: { 'idempotency-key': crypto.randomUUID() },
            body,
          });
      onSaved({ product: answer.body, etag: answer.headers.get('etag') ?? '' });
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  const changed = problem?.status === 412;
  return (
    <form aria-labelledby={id} className="panel" onSubmit={(event) => void save(event)}>
      <h2 id={id}>{product ? 'Edit product' : 'New product'}</h2>
      <div className="fields">
        <label htmlFor={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          required
          maxLength={200}
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
        <label htmlFor={`${id}-sku`}>SKU</label>
        <input
          id={`${id}-sku`}
          pattern="[A-Za-z0-9._\-]{1,64}"
          value={sku}
          onChange={(event) => setSku(event.target.value)}
        />
        <label htmlFor={`${id}-description`}>Description</label>
        <input
          id={`${id}-description`}
          maxLength={2000}
          value={description}
          onChange={(event) => setDescription(event.target.value)}
        />
        <label htmlFor={`${id}-price`}>Price</label>
        <input
          id={`${id}-price`}
          type="number"
          min={0}
          step={0.01}
          required
          value={price}
          onChange={(event) => setPrice(event.target.value)}
        />
        <label htmlFor={`${id}-threshold`}>Low-stock threshold</label>
        <input
          id={`${id}-threshold`}
          type="number"
          min={0}
          step={1}
          value={threshold}
          onChange={(event) => setThreshold(event.target.value)}
        />
        {!product && (
          <>
            <label htmlFor={`${id}-quantity`}>Quantity in stock</label>
            <input
              id={`${id}-quantity`}
              type="number"
              min={0}
              step={1}
              value={quantity}
              onChange={(event) => setQuantity(event.target.value)}
            />
          </>
        )}
      </div>
      <button type="submit" disabled={busy}>
        {product ? 'Save product' : 'Create product'}
      </button>
      {changed ? (
        <div role="alert" className="problem">
          <p>
            This product changed since you opened it; your changes were not saved. Reload it to see the new version.
          </p>
          <button type="button" onClick={onReload}>
            Reload
          </button>
        </div>
      ) : (
        <ProblemMessage problem={problem} />
      )}
    </form>
  );
}
