import { useState } from 'react';
import { callApi } from '../api';
import { ProblemMessage } from '../problem-message';
import { BASE, Link } from '../router';
import { type Session, STOCK } from '../session';
import type { Location, Product, StockLevel } from '../types';
import { useLoaded } from '../use-api';
import { AdjustStockForm } from './adjust-stock-form';
import { Ledger } from './ledger';
import { ProductForm } from './product-form';
import { StateChangeForm } from './state-change-form';

/** Each state of a level, by the name the page shows it under. */
const STATES = [
  ['On hand', 'onHand'],
  ['Reserved', 'reserved'],
  ['Committed', 'committed'],
  ['Quality control', 'qualityControl'],
  ['Damaged', 'damaged'],
  ['Available', 'available'],
  ['Incoming', 'incoming'],
] as const satisfies readonly (readonly [string, keyof StockLevel])[];

interface ProductView {
  readonly product: Product;
  /** The version read: an edit saves with it in If-Match. */
  readonly etag: string;
  readonly levels: StockLevel[];
  readonly locations: Location[];
}

async function loadProduct(session: Session, id: number): Promise<ProductView> {
  const [product, levels, locations] = await Promise.all([
    callApi<Product>(session, STOCK, `/api/products/${id}`),
    callApi<StockLevel[]>(session, STOCK, `/api/products/${id}/stock-levels`),
    callApi<Location[]>(session, STOCK, '/api/locations'),
  ]);
  return {
    product: product.body,
    etag: product.headers.get('etag') ?? '',
    levels: levels.body,
    locations: locations.body,
  };
}

/**
 * A product: its level in every state at each location; for those who may write stock, Edit product, Adjust stock and
 * Move units; its ledger, newest first.
 */
export function ProductPage({ session, id, scopes }: { session: Session; id: number; scopes: Set<string> }) {
  const [view, reload] = useLoaded(() => loadProduct(session, id), String(id));
  const [ledgerRound, setLedgerRound] = useState(0);
  const [editing, setEditing] = useState(false);
  const writes = scopes.has('stock:write');
  const adjusted = () => {
    reload();
    setLedgerRound((round) => round + 1);
  };
  if (view.state === 'loading') return <p role="status">Loading…</p>;
  if (view.state === 'failed')
    return (
      <>
        <h1>Product {id}</h1>
        <ProblemMessage problem={view.problem} />
        <Link href={`${BASE}/products`}>Back to products</Link>
      </>
    );
  const { product, etag, levels, locations } = view.value;
  return (
    <>
      <h1>{product.name}</h1>
      <p>
        {[
          `Product ${product.id}`,
          product.sku && `SKU ${product.sku}`,
          product.description,
          product.lowStockThreshold > 0 && `low below ${product.lowStockThreshold} available`,
        ]
          .filter(Boolean)
          .join(' · ')}
      </p>
      {writes && (
        <button type="button" aria-expanded={editing} onClick={() => setEditing(!editing)}>
          Edit product
        </button>
      )}
      {writes && editing && (
        <ProductForm
          // A new version (saved, or reloaded) opens the form afresh on it.
          key={etag}
          session={session}
          editing={{ product, etag }}
          onSaved={() => {
            setEditing(false);
            adjusted();
          }}
          onReload={reload}
        />
      )}
      <p>
        <Link href={`${BASE}/transfers?product=${product.id}`}>Transfers of this product</Link>
      </p>
      <h2 id="levels">Stock by location</h2>
      <table aria-labelledby="levels">
        <thead>
          <tr>
            <th scope="col">Location</th>
            {STATES.map(([name]) => (
              <th key={name} scope="col" className="number">
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {levels.map((level) => (
            <tr key={level.locationId}>
              <th scope="row">{level.locationCode}</th>
              {STATES.map(([name, field]) => (
                <td key={name} className="number">
                  {level[field]}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {writes && <AdjustStockForm session={session} productId={id} locations={locations} onApplied={adjusted} />}
      {writes && <StateChangeForm session={session} productId={id} locations={locations} onMoved={adjusted} />}
      <Ledger session={session} productId={id} locations={locations} round={ledgerRound} />
    </>
  );
}
