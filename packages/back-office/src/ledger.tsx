import { useState } from 'react';
import { callApi, nextLink } from './api';
import { ProblemMessage } from './problem-message';
import { type Session, STOCK } from './session';
import type { Location, StockMovement } from './types';
import { useLoaded } from './use-api';

const PAGE_SIZE = 20;
const time = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'medium' });

/**
 * The API pages the ledger oldest first; the page shows it newest first, so it reads every page (1,000 movements
 * each) and turns them around.
 */
async function wholeLedger(session: Session, productId: number): Promise<StockMovement[]> {
  const movements: StockMovement[] = [];
  let path: string | undefined = `/api/products/${productId}/stock-movements?limit=1000`;
  while (path) {
    const page: Awaited<ReturnType<typeof callApi<StockMovement[]>>> = await callApi<StockMovement[]>(
      session,
      STOCK,
      path,
    );
    movements.push(...page.body);
    path = nextLink(page.headers);
  }
  return movements.reverse();
}

interface Props {
  readonly session: Session;
  readonly productId: number;
  readonly locations: readonly Location[];
  /** Changes when the ledger has grown (an adjustment was applied). */
  readonly round: number;
}

/** A product's stock movements, newest first, a page at a time: kind, change, reason, note, who and when. */
export function Ledger({ session, productId, locations, round }: Props) {
  const [ledger] = useLoaded(() => wholeLedger(session, productId), `${productId} ${round}`);
  const [page, setPage] = useState(0);
  const codeOf = (locationId: number) =>
    locations.find((location) => location.id === locationId)?.code ?? String(locationId);
  const movements = ledger.state === 'loaded' ? ledger.value : [];
  const shown = movements.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
  return (
    <section aria-labelledby="ledger">
      <h2 id="ledger">Ledger</h2>
      {ledger.state === 'loading' && <p role="status">Loading…</p>}
      <ProblemMessage problem={ledger.state === 'failed' ? ledger.problem : undefined} />
      {ledger.state === 'loaded' && (
        <>
          <table aria-labelledby="ledger">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Kind</th>
                <th scope="col">Location</th>
                <th scope="col" className="number">
                  Change
                </th>
                <th scope="col">Reason code</th>
                <th scope="col">Note</th>
                <th scope="col">Actor</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((movement) => (
                <tr key={movement.id}>
                  <td>{time.format(new Date(movement.at))}</td>
                  <td>{movement.kind}</td>
                  <td>{codeOf(movement.locationId)}</td>
                  <td className="number">{movement.quantityDelta}</td>
                  <td>{movement.reasonCode}</td>
                  <td>{movement.reason ?? ''}</td>
                  <td>{movement.actor}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav aria-label="Ledger pages" className="pages">
            {page > 0 && (
              <button type="button" onClick={() => setPage(page - 1)}>
                Newer movements
              </button>
            )}
            {(page + 1) * PAGE_SIZE < movements.length && (
              <button type="button" onClick={() => setPage(page + 1)}>
                Older movements
              </button>
            )}
          </nav>
        </>
      )}
    </section>
  );
}
