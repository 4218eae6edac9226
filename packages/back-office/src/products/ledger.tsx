import { useState } from 'react';
import { callApi, nextLink } from '../api';
import { ProblemMessage } from '../problem-message';
import { type Session, STOCK } from '../session';
import type { Location, StockMovement } from '../types';
import { useLoaded } from '../use-api';

const PAGE_SIZE = 20;
const time = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'medium' });

interface Props {
  readonly session: Session;
  readonly productId: number;
  readonly locations: readonly Location[];
  /** Changes when the ledger has grown (an adjustment was applied). */
  readonly round: number;
}

/**
 * A product's stock movements, newest first, a page at a time (the API's keyset, `order=desc`): kind, change, reason,
 * note, who and when. Newer movements goes back along the pages read; a new round starts again at the newest.
 */
export function Ledger({ session, productId, locations, round }: Props) {
  const first = `/api/products/${productId}/stock-movements?order=desc&limit=${PAGE_SIZE}`;
  // The pages read so far, newest first: the last is the one shown.
  const [trail, setTrail] = useState<{ round: number; paths: string[] }>({ round, paths: [first] });
  const paths = trail.round === round ? trail.paths : [first];
  const path = paths[paths.length - 1]!;
  const [ledger] = useLoaded(() => callApi<StockMovement[]>(session, STOCK, path), `${path} ${round}`);
  const codeOf = (locationId: number) =>
    locations.find((location) => location.id === locationId)?.code ?? String(locationId);
  const shown = ledger.state === 'loaded' ? ledger.value.body : [];
  const older = ledger.state === 'loaded' ? nextLink(ledger.value.headers) : undefined;
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
            {paths.length > 1 && (
              <button type="button" onClick={() => setTrail({ round, paths: paths.slice(0, -1) })}>
                Newer movements
              </button>
            )}
            {older && (
              <button type="button" onClick={() => setTrail({ round, paths: [...paths, older] })}>
                Older movements
              </button>
            )}
          </nav>
        </>
      )}
    </section>
  );
}
