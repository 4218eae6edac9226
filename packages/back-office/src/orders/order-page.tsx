import { useEffect, useState } from 'react';
import { callApi } from '../api';
import { ProblemMessage } from '../problem-message';
import { BASE, Link } from '../router';
import { SALES, type Session, STOCK } from '../session';
import type { Location } from '../types';
import { useLoaded } from '../use-api';
import { dateTime, money } from './money';
import { allowedActions, statusLabel } from './order-actions';
import type { Order, Shipment, StockReturn } from './order-types';
import { RefundForm } from './refund-form';
import { ReturnForm } from './return-form';
import { ShipForm } from './ship-form';
import './orders.css';

interface OrderView {
  readonly order: Order;
  readonly locations: readonly Location[];
  readonly shipments: readonly Shipment[];
  readonly returns: readonly StockReturn[];
}

async function loadOrder(session: Session, id: string): Promise<OrderView> {
  const query = `orderId=${encodeURIComponent(id)}`;
  const [order, locations, shipments, returns] = await Promise.all([
    callApi<Order>(session, SALES, `/api/orders/${encodeURIComponent(id)}`),
    callApi<Location[]>(session, STOCK, '/api/locations'),
    callApi<Shipment[]>(session, STOCK, `/api/shipments?${query}`),
    callApi<StockReturn[]>(session, STOCK, `/api/returns?${query}`),
  ]);
  return { order: order.body, locations: locations.body, shipments: shipments.body, returns: returns.body };
}

const unitsOf = (lines: readonly { quantity: number }[]) => lines.reduce((sum, line) => sum + line.quantity, 0);

/**
 * Stock records shipments and returns at once; sales learns of them by events, and the provider settles refunds by
 * webhook: until the order says what stock and the provider did, the page reads it again.
 */
function settling({ order, shipments, returns }: OrderView): boolean {
  const shipped = unitsOf(order.lines.map((line) => ({ quantity: line.shippedQuantity })));
  const returned = unitsOf(order.lines.map((line) => ({ quantity: line.returnedQuantity })));
  return (
    order.refunds.some((refund) => refund.status === 'pending') ||
    // Sales captures at the first shipment, and the provider's webhook says it did.
    (shipped > 0 && order.payment?.status === 'authorized') ||
    shipments.reduce((sum, shipment) => sum + unitsOf(shipment.lines), 0) > shipped ||
    returns.reduce((sum, stockReturn) => sum + unitsOf(stockReturn.lines), 0) > returned
  );
}
/** How long the page keeps reading a settling order again (a provider that is down settles later). */
const SETTLE_POLLS = 120;
const SETTLE_EVERY_MS = 1_000;

type Open = 'ship' | 'return' | 'refund' | undefined;

/** An order: its lines, where they are held, its payment, shipments and returns, and the actions it allows. */
export function OrderPage({ session, id, scopes }: { session: Session; id: string; scopes: Set<string> }) {
  const [view, reload] = useLoaded(() => loadOrder(session, id), id);
  const [open, setOpen] = useState<Open>();
  const [done, setDone] = useState('');
  const [polls, setPolls] = useState(0);
  const waiting = view.state === 'loaded' && settling(view.value) && polls < SETTLE_POLLS;
  useEffect(() => {
    if (!waiting) return;
    const timer = window.setTimeout(() => {
      setPolls((count) => count + 1);
      reload();
    }, SETTLE_EVERY_MS);
    return () => window.clearTimeout(timer);
  }, [waiting, view]);

  if (view.state === 'loading') return <p role="status">Loading…</p>;
  if (view.state === 'failed')
    return (
      <>
        <h1>Order {id}</h1>
        <ProblemMessage problem={view.problem} />
        <Link href={`${BASE}/orders`}>Back to orders</Link>
      </>
    );
  const { order, locations, shipments, returns } = view.value;
  const currency = order.payment?.currency;
  const codeOf = (locationId: number) =>
    locations.find((location) => location.id === locationId)?.code ?? `location ${locationId}`;
  const nameOf = (productId: number) =>
    order.lines.find((line) => line.productId === productId)?.name ?? `product ${productId}`;
  const actions = allowedActions(order, scopes);
  const finished = (message: string) => {
    setOpen(undefined);
    setDone(message);
    setPolls(0);
    reload();
  };
  const toggle = (form: Exclude<Open, undefined>) => {
    setDone('');
    setOpen((current) => (current === form ? undefined : form));
  };
  const close = () => setOpen(undefined);

  return (
    <>
      <p>
        <Link href={`${BASE}/orders`}>Orders</Link>
      </p>
      <h1>Order {order.id}</h1>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          {statusLabel(order.status)}
          {order.failureReason && ` (${order.failureReason})`}
          {order.paymentToRelease && ' · payment being given back'}
        </dd>
        <dt>Buyer</dt>
        <dd>{order.buyer}</dd>
        <dt>Placed</dt>
        <dd>{dateTime(order.createdAt)}</dd>
        <dt>Total</dt>
        <dd>{money(order.total, currency)}</dd>
      </dl>
      {(actions.ship || actions.return || actions.refund) && (
        <div className="toolbar" role="group" aria-label="Actions">
          {actions.ship && (
            <button type="button" aria-expanded={open === 'ship'} onClick={() => toggle('ship')}>
              Ship
            </button>
          )}
          {actions.return && (
            <button type="button" aria-expanded={open === 'return'} onClick={() => toggle('return')}>
              Record return
            </button>
          )}
          {actions.refund && (
            <button type="button" aria-expanded={open === 'refund'} onClick={() => toggle('refund')}>
              Refund
            </button>
          )}
        </div>
      )}
      {open === 'ship' && actions.ship && (
        <ShipForm session={session} order={order} locations={locations} onDone={finished} onClose={close} />
      )}
      {open === 'return' && actions.return && (
        <ReturnForm session={session} order={order} locations={locations} onDone={finished} onClose={close} />
      )}
      {open === 'refund' && actions.refund && (
        <RefundForm session={session} order={order} onDone={finished} onClose={close} />
      )}
      <p role="status" className="done">
        {done}
        {waiting && done && ' Waiting for the order to show it…'}
      </p>

      <section aria-labelledby="lines-heading">
        <h2 id="lines-heading">Lines</h2>
        <table>
          <thead>
            <tr>
              <th scope="col">Product</th>
              <th scope="col" className="number">
                Quantity
              </th>
              <th scope="col" className="number">
                Unit price
              </th>
              <th scope="col" className="number">
                Line total
              </th>
              <th scope="col">Held at</th>
              <th scope="col" className="number">
                Shipped
              </th>
              <th scope="col" className="number">
                Returned
              </th>
            </tr>
          </thead>
          <tbody>
            {order.lines.map((line) => (
              <tr key={line.productId}>
                <th scope="row">
                  <Link href={`${BASE}/products/${line.productId}`}>{line.name}</Link>
                </th>
                <td className="number">{line.quantity}</td>
                <td className="number">{money(line.unitPrice, currency)}</td>
                <td className="number">{money(line.lineTotal, currency)}</td>
                <td>
                  {line.allocations.length === 0
                    ? 'not held yet'
                    : line.allocations
                        .map((allocation) => `${codeOf(allocation.locationId)}: ${allocation.quantity}`)
                        .join(', ')}
                </td>
                <td className="number">{line.shippedQuantity}</td>
                <td className="number">{line.returnedQuantity}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section aria-labelledby="payment-heading">
        <h2 id="payment-heading">Payment</h2>
        {order.payment ? (
          <dl className="facts">
            <dt>Status</dt>
            <dd>{statusLabel(order.payment.status)}</dd>
            <dt>Amount</dt>
            <dd>{money(order.payment.amount, currency)}</dd>
            <dt>Captured</dt>
            <dd>{money(order.payment.capturedAmount, currency)}</dd>
            <dt>Refunded</dt>
            <dd>{money(order.payment.refundedAmount, currency)}</dd>
            <dt>Provider</dt>
            <dd>
              {order.payment.provider} {order.payment.intentId}
            </dd>
            {order.payment.lastError && (
              <>
                <dt>Last error</dt>
                <dd>{order.payment.lastError}</dd>
              </>
            )}
          </dl>
        ) : (
          <p>No payment yet: sales asks for one once stock holds the order.</p>
        )}
      </section>

      <section aria-labelledby="refunds-heading">
        <h2 id="refunds-heading">Refunds</h2>
        {order.refunds.length === 0 ? (
          <p>None.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Asked</th>
                <th scope="col" className="number">
                  Amount
                </th>
                <th scope="col">Reason</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {order.refunds.map((refund) => (
                <tr key={refund.id}>
                  <td>{dateTime(refund.createdAt)}</td>
                  <td className="number">{money(refund.amount, currency)}</td>
                  <td>{refund.reason}</td>
                  <td>
                    {refund.status}
                    {refund.failureReason && ` (${refund.failureReason})`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section aria-labelledby="shipments-heading">
        <h2 id="shipments-heading">Shipments</h2>
        {shipments.length === 0 ? (
          <p>None.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Shipped</th>
                <th scope="col">Units</th>
                <th scope="col">Carrier</th>
              </tr>
            </thead>
            <tbody>
              {shipments.map((shipment) => (
                <tr key={shipment.id}>
                  <td>{dateTime(shipment.createdAt)}</td>
                  <td>
                    {shipment.lines
                      .map((line) => `${line.quantity} × ${nameOf(line.productId)} from ${codeOf(line.locationId)}`)
                      .join(', ')}
                  </td>
                  <td>{[shipment.carrier, shipment.trackingNumber].filter(Boolean).join(' ') || '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section aria-labelledby="returns-heading">
        <h2 id="returns-heading">Returns</h2>
        {returns.length === 0 ? (
          <p>None.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">Units</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {returns.map((stockReturn) => (
                <tr key={stockReturn.id}>
                  <td>{dateTime(stockReturn.createdAt)}</td>
                  <td>
                    {stockReturn.lines
                      .map(
                        (line) =>
                          `${line.quantity} × ${nameOf(line.productId)} to ${codeOf(line.locationId)}, ${line.disposition}`,
                      )
                      .join('; ')}
                  </td>
                  <td>{stockReturn.reason ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
