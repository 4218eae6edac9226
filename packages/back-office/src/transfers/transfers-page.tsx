import { type FormEvent, useState } from 'react';
import { type ApiProblem, callApi, nextLink } from '../api';
import { ProblemMessage } from '../problem-message';
import { BASE, Link, navigate, useLocation } from '../router';
import { type Session, STOCK } from '../session';
import type { Location, StockTransfer } from '../types';
import { asProblem, useLoaded } from '../use-api';

const PAGE_SIZE = 20;
const time = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' });

interface Props {
  readonly session: Session;
  readonly scopes: Set<string>;
}

/**
 * Transfers: New transfer (for those who may write stock), and every transfer (or one product's, `?product=`) with
 * Receive and Cancel on those in transit.
 */
export function TransfersPage({ session, scopes }: Props) {
  const url = useLocation();
  const chosen = Number(url.searchParams.get('product') ?? '') || undefined;
  const [locations] = useLoaded(() => callApi<Location[]>(session, STOCK, '/api/locations'), 'locations');
  const codes = locations.state === 'loaded' ? locations.value.body : [];
  const writes = scopes.has('stock:write');
  // A new transfer shows in the list it was made from: every transfer, or its product's.
  const listOf = (transfer: StockTransfer) =>
    chosen === undefined ? `${BASE}/transfers?` : `${BASE}/transfers?product=${transfer.productId}&`;
  return (
    <>
      <h1>Transfers</h1>
      <ProblemMessage problem={locations.state === 'failed' ? locations.problem : undefined} />
      {writes && locations.state === 'loaded' && (
        <NewTransferForm
          session={session}
          locations={codes}
          productId={chosen}
          onCreated={(transfer) => navigate(`${listOf(transfer)}sent=${transfer.id}`)}
        />
      )}
      <TransferList session={session} productId={chosen} locations={codes} writes={writes} round={url.search} />
    </>
  );
}

interface FormProps {
  readonly session: Session;
  readonly locations: readonly Location[];
  readonly productId: number | undefined;
  readonly onCreated: (transfer: StockTransfer) => void;
}

/** Sends units of a product from one location to another; a refusal shows here, with its detail. */
function NewTransferForm({ session, locations, productId, onCreated }: FormProps) {
  const [product, setProduct] = useState(productId === undefined ? '' : String(productId));
  const [from, setFrom] = useState(String(locations[0]?.id ?? ''));
  const [to, setTo] = useState(String(locations[1]?.id ?? locations[0]?.id ?? ''));
  const [quantity, setQuantity] = useState('');
  const [reference, setReference] = useState('');
  const [problem, setProblem] = useState<ApiProblem>();
  const [busy, setBusy] = useState(false);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(undefined);
    setBusy(true);
    try {
      const sent = await callApi<StockTransfer>(session, STOCK, '/api/stock-transfers', {
        method: 'POST',
        body: {
          productId: Number(product),
          fromLocationId: Number(from),
          toLocationId: Number(to),
          quantity: Number(quantity),
          reference: reference.trim(),
        },
      });
      setQuantity('');
      setReference('');
      onCreated(sent.body);
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  const where = (id: string, value: string, set: (value: string) => void) => (
    <select id={id} value={value} onChange={(event) => set(event.target.value)}>
      {locations.map((location) => (
        <option key={location.id} value={location.id}>
          {location.code}
        </option>
      ))}
    </select>
  );
  return (
    <form aria-labelledby="new-transfer" className="panel" onSubmit={(event) => void create(event)}>
      <h2 id="new-transfer">New transfer</h2>
      <div className="fields">
        <label htmlFor="transfer-product">Product</label>
        <input
          id="transfer-product"
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          required
          value={product}
          onChange={(event) => setProduct(event.target.value)}
          aria-describedby="transfer-product-hint"
        />
        <span id="transfer-product-hint" className="hint">
          The product’s number, as its page shows it
        </span>
        <label htmlFor="transfer-from">From</label>
        {where('transfer-from', from, setFrom)}
        <label htmlFor="transfer-to">To</label>
        {where('transfer-to', to, setTo)}
        <label htmlFor="transfer-quantity">Quantity</label>
        <input
          id="transfer-quantity"
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          required
          value={quantity}
          onChange={(event) => setQuantity(event.target.value)}
        />
        <label htmlFor="transfer-reference">Reference</label>
        <input
          id="transfer-reference"
          required
          maxLength={100}
          value={reference}
          onChange={(event) => setReference(event.target.value)}
          aria-describedby="transfer-reference-hint"
        />
        <span id="transfer-reference-hint" className="hint">
          Yours, once per transfer: sending it again answers the first
        </span>
      </div>
      <button type="submit" disabled={busy}>
        Create transfer
      </button>
      <ProblemMessage problem={problem} />
    </form>
  );
}

interface ListProps {
  readonly session: Session;
  /** Only this product's transfers, when given. */
  readonly productId: number | undefined;
  readonly locations: readonly Location[];
  readonly writes: boolean;
  /** Changes when the list may have grown (a transfer was created): it starts again at its first page. */
  readonly round: string;
}

/**
 * Transfers as the API lists them, in transit first, then newest first, a page at a time (its keyset, from the Link
 * header); Previous page goes back along the pages read.
 */
function TransferList({ session, productId, locations, writes, round }: ListProps) {
  const first = `/api/stock-transfers?limit=${PAGE_SIZE}${productId === undefined ? '' : `&productId=${productId}`}`;
  const [trail, setTrail] = useState<{ round: string; paths: string[] }>({ round, paths: [first] });
  const paths = trail.round === round ? trail.paths : [first];
  const path = paths[paths.length - 1]!;
  const [transfers, reload] = useLoaded(() => callApi<StockTransfer[]>(session, STOCK, path), `${path} ${round}`);
  const codeOf = (id: number) => locations.find((location) => location.id === id)?.code ?? String(id);
  const shown = transfers.state === 'loaded' ? transfers.value.body : [];
  const next = transfers.state === 'loaded' ? nextLink(transfers.value.headers) : undefined;
  return (
    <section aria-labelledby="transfer-list">
      <h2 id="transfer-list">{productId === undefined ? 'All transfers' : `Transfers of product ${productId}`}</h2>
      {productId !== undefined && (
        <p className="toolbar">
          <Link href={`${BASE}/products/${productId}`}>Back to product {productId}</Link>
          <Link href={`${BASE}/transfers`}>All transfers</Link>
        </p>
      )}
      {transfers.state === 'loading' && <p role="status">Loading…</p>}
      <ProblemMessage problem={transfers.state === 'failed' ? transfers.problem : undefined} />
      {transfers.state === 'loaded' &&
        (shown.length === 0 && paths.length === 1 ? (
          <p>{productId === undefined ? 'There is no transfer yet.' : 'This product has no transfer.'}</p>
        ) : (
          <>
            <table aria-labelledby="transfer-list">
              <thead>
                <tr>
                  <th scope="col">Reference</th>
                  <th scope="col">Status</th>
                  <th scope="col">Product</th>
                  <th scope="col">From</th>
                  <th scope="col">To</th>
                  <th scope="col" className="number">
                    Quantity
                  </th>
                  <th scope="col">Sent</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((transfer) => (
                  <TransferRow
                    key={transfer.id}
                    session={session}
                    transfer={transfer}
                    codeOf={codeOf}
                    writes={writes}
                    onChanged={reload}
                  />
                ))}
              </tbody>
            </table>
            <nav aria-label="Transfer pages" className="pages">
              {paths.length > 1 && (
                <button type="button" onClick={() => setTrail({ round, paths: paths.slice(0, -1) })}>
                  Previous page
                </button>
              )}
              {next && (
                <button type="button" onClick={() => setTrail({ round, paths: [...paths, next] })}>
                  Next page
                </button>
              )}
            </nav>
          </>
        ))}
    </section>
  );
}

interface RowProps {
  readonly session: Session;
  readonly transfer: StockTransfer;
  readonly codeOf: (locationId: number) => string;
  readonly writes: boolean;
  readonly onChanged: () => void;
}

/** One transfer; in transit, Receive and Cancel transfer, whose refusal shows in its row. */
function TransferRow({ session, transfer, codeOf, writes, onChanged }: RowProps) {
  const [problem, setProblem] = useState<ApiProblem>();
  const [busy, setBusy] = useState(false);
  const act = async (step: 'receive' | 'cancel') => {
    setProblem(undefined);
    setBusy(true);
    try {
      await callApi(session, STOCK, `/api/stock-transfers/${transfer.id}/${step}`, { method: 'POST' });
      onChanged();
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <tr>
      <th scope="row">{transfer.reference}</th>
      <td>{transfer.status}</td>
      <td>
        <Link href={`${BASE}/products/${transfer.productId}`}>{transfer.productId}</Link>
      </td>
      <td>{codeOf(transfer.fromLocationId)}</td>
      <td>{codeOf(transfer.toLocationId)}</td>
      <td className="number">{transfer.quantity}</td>
      <td>{time.format(new Date(transfer.createdAt))}</td>
      <td>
        {writes && transfer.status === 'in-transit' && (
          <span className="toolbar">
            <button type="button" disabled={busy} onClick={() => void act('receive')}>
              Receive
            </button>
            <button type="button" disabled={busy} onClick={() => void act('cancel')}>
              Cancel transfer
            </button>
          </span>
        )}
        <ProblemMessage problem={problem} />
      </td>
    </tr>
  );
}
