import { useState } from 'react';
import { callApi } from './api';
import { AdjustStockForm } from './adjust-stock-form';
import { Ledger } from './ledger';
import { ProblemMessage } from './problem-message';
import { BASE, Link } from './router';
import { type Session, STOCK } from './session';
import type { Location, Product, StockLevel } from './types';
import { useLoaded } from './use-api';

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
  readonly levels: StockLevel[];
  readonly locations: Location[];
}

async function loadProduct(session: Session, id: number): Promise<ProductView> {
  const [product, levels, locations] = await Promise.all([
    callApi<Product>(session, STOCK, `/api/products/${id}`),
    callApi<StockLevel[]>(session, STOCK, `/api/products/${id}/stock-levels`),
    callApi<Location[]>(session, STOCK, '/api/locations'),
  ]);
  return { product: product.body, levels: levels.body, locations: locations.body };
}

/** A product: its level in every state at each location, the Adjust stock form (for those who may), its ledger. */
export function ProductPage({ session, id, scopes }: { session: Session; id: number; scopes: Set<string> }) {
  const [view, reload] = useLoaded(() => loadProduct(session, id), String(id));
  const [ledgerRound, setLedgerRound] = useState(0);
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
  const { product, levels, locations } = view.value;
  return (
    <>
      <h1>{product.name}</h1>
      <p>
        {product.sku && <>SKU {product.sku} · </>}
        {product.description}
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
      {scopes.has('stock:write') && (
        <AdjustStockForm session={session} productId={id} locations={locations} onApplied={adjusted} />
      )}
      <Ledger session={session} productId={id} locations={locations} round={ledgerRound} />
    </>
  );
}
