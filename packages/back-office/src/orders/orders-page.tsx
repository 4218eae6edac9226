import { ProblemMessage } from '../problem-message';
import { BASE, Link, navigate, useLocation } from '../router';
import type { Session } from '../session';
import { useLoaded } from '../use-api';
import { loadOrders } from './load-orders';
import { money } from './money';
import { statusLabel } from './order-actions';
import { ORDER_STATUSES, type OrderStatus } from './order-types';
import './orders.css';

const isStatus = (value: string | null): value is OrderStatus =>
  value !== null && (ORDER_STATUSES as readonly string[]).includes(value);

/** Orders, oldest first, of the status the filter names (paid by default: those waiting to ship), in pages. */
export function OrdersPage({ session }: { session: Session }) {
  const url = useLocation();
  const asked = url.searchParams.get('status');
  const status = asked === 'all' ? undefined : isStatus(asked) ? asked : 'paid';
  const after = url.searchParams.get('after') ?? undefined;
  const [page] = useLoaded(() => loadOrders(session, status, after), `${status ?? 'all'} ${after ?? ''}`);
  const show = (changes: { status?: string; after?: string }) => {
    const next = new URLSearchParams({ status: changes.status ?? status ?? 'all' });
    if (changes.after) next.set('after', changes.after);
    navigate(`${BASE}/orders?${next.toString()}`);
  };

  return (
    <>
      <h1>Orders</h1>
      <div className="toolbar">
        <label htmlFor="order-status">Status</label>
        <select id="order-status" value={status ?? 'all'} onChange={(event) => show({ status: event.target.value })}>
          <option value="all">Every status</option>
          {ORDER_STATUSES.map((value) => (
            <option key={value} value={value}>
              {statusLabel(value)}
            </option>
          ))}
        </select>
      </div>
      {page.state === 'loading' && <p role="status">Loading…</p>}
      <ProblemMessage problem={page.state === 'failed' ? page.problem : undefined} />
      {page.state === 'loaded' && (
        <>
          {page.value.orders.length === 0 ? (
            <p>
              No {status ? `${statusLabel(status)} ` : ''}order{after ? ' further on' : ''}.
            </p>
          ) : (
            <table>
              <caption className="visually-hidden">Orders, oldest first</caption>
              <thead>
                <tr>
                  <th scope="col">Order</th>
                  <th scope="col">Placed</th>
                  <th scope="col">Buyer</th>
                  <th scope="col">Status</th>
                  <th scope="col">Items</th>
                  <th scope="col" className="number">
                    Total
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.value.orders.map((order) => (
                  <tr key={order.id}>
                    <td>
                      <Link href={`${BASE}/orders/${order.id}`} className="order-id">
                        {order.id}
                      </Link>
                    </td>
                    <td>{new Date(order.createdAt).toLocaleString('en-GB')}</td>
                    <td>{order.buyer}</td>
                    <td>{statusLabel(order.status)}</td>
                    <td>{order.lines.map((line) => `${line.quantity} × ${line.name}`).join(', ')}</td>
                    <td className="number">{money(order.total, order.payment?.currency)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <nav aria-label="Pages" className="pages">
            {after && (
              <button type="button" onClick={() => window.history.back()}>
                Previous page
              </button>
            )}
            {page.value.after && (
              <button type="button" onClick={() => show({ after: page.value.after })}>
                Next page
              </button>
            )}
          </nav>
        </>
      )}
    </>
  );
}
