import { type FormEvent, useState } from 'react';
import { callApi, nextLink } from '../api';
import { ProblemMessage } from '../problem-message';
import { BASE, Link, navigate, useLocation } from '../router';
import { type Session, STOCK } from '../session';
import type { Product } from '../types';
import { useLoaded } from '../use-api';
import { COLUMNS, ProductTable } from './product-table';

const PAGE_SIZE = 20;
const SORTS = [
  ['name', 'Name, A to Z'],
  ['-name', 'Name, Z to A'],
  ['price', 'Price, lowest first'],
  ['-price', 'Price, highest first'],
  ['-available', 'Most available first'],
  ['available', 'Least available first'],
  ['id', 'Oldest first'],
] as const;

/** The search the page shows, as its URL keeps it (so back and forward, and a reload, keep it too). */
function searchOf(url: URL): URLSearchParams {
  const query = new URLSearchParams({ sort: url.searchParams.get('sort') ?? 'name', limit: String(PAGE_SIZE) });
  const q = url.searchParams.get('q') ?? '';
  if (q !== '') query.set('q', q);
  const cursor = url.searchParams.get('cursor');
  if (cursor) query.set('cursor', cursor);
  return query;
}

/**
 * Products: a search (at least 3 characters, as the API asks), a sort, and pages by the API's cursor; New product for
 * those who may write stock.
 */
export function ProductsPage({ session, scopes }: { session: Session; scopes: Set<string> }) {
  const url = useLocation();
  const query = searchOf(url);
  const [text, setText] = useState(query.get('q') ?? '');
  const [products] = useLoaded(
    () => callApi<Product[]>(session, STOCK, `/api/products?${query.toString()}`),
    query.toString(),
  );
  const show = (changes: Record<string, string>) => {
    const next = new URLSearchParams({ sort: query.get('sort')!, q: query.get('q') ?? '', ...changes });
    if (next.get('q') === '') next.delete('q');
    navigate(`${BASE}/products?${next.toString()}`);
  };
  const search = (event: FormEvent) => {
    event.preventDefault();
    show({ q: text.trim() });
  };
  const next = products.state === 'loaded' ? nextLink(products.value.headers) : undefined;
  const nextCursor = next && new URL(next, window.location.origin).searchParams.get('cursor');

  return (
    <>
      <h1>Products</h1>
      {scopes.has('stock:write') && (
        <p>
          <Link href={`${BASE}/products/new`}>New product</Link>
        </p>
      )}
      <form role="search" className="toolbar" onSubmit={search}>
        <label htmlFor="product-search">Search</label>
        <input
          id="product-search"
          type="search"
          minLength={3}
          maxLength={200}
          value={text}
          onChange={(event) => setText(event.target.value)}
          placeholder="name, description or SKU"
        />
        <button type="submit">Find</button>
        <label htmlFor="product-sort">Sort</label>
        <select id="product-sort" value={query.get('sort')!} onChange={(event) => show({ sort: event.target.value })}>
          {SORTS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </form>
      {products.state === 'loading' && <p role="status">Loading…</p>}
      <ProblemMessage problem={products.state === 'failed' ? products.problem : undefined} />
      {products.state === 'loaded' && (
        <>
          <ProductTable
            caption="Products"
            products={products.value.body}
            columns={[COLUMNS.sku, COLUMNS.price, COLUMNS.onHand, COLUMNS.available]}
            empty="No product matches."
          />
          <nav aria-label="Pages" className="pages">
            {query.has('cursor') && (
              <button type="button" onClick={() => window.history.back()}>
                Previous page
              </button>
            )}
            {nextCursor && (
              <button type="button" onClick={() => show({ cursor: nextCursor })}>
                Next page
              </button>
            )}
          </nav>
        </>
      )}
    </>
  );
}
