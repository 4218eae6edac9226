import { type FormEvent, type ReactNode, useRef, useState } from 'react';
import { type ApiProblem, callApi } from '../api';
import { ProblemMessage } from '../problem-message';
import type { Audience, Session } from '../session';
import { asProblem } from '../use-api';

/** POSTs `body` to `path` with the form's Idempotency-Key; answers the API's JSON. */
export type PostOnce = <T>(audience: Audience, path: string, body: unknown) => Promise<T>;

interface Props {
  readonly session: Session;
  /** The form's heading, and so its accessible name. */
  readonly title: string;
  readonly headingId: string;
  /** The submit button's name. */
  readonly confirm: string;
  /** Sends what the form asks (by `post`) and answers what to tell the user it did. */
  readonly submit: (post: PostOnce) => Promise<string>;
  readonly onDone: (message: string) => void;
  readonly onClose: () => void;
  readonly children: ReactNode;
}

/**
 * An order action's form, submitted once: busy while it runs, the API's refusal shown in it if it refused. The
 * Idempotency-Key is made when the form opens and kept until the action succeeds, so a submission repeated after a
 * lost answer is done once.
 */
export function ActionForm({ session, title, headingId, confirm, submit, onDone, onClose, children }: Props) {
  const [problem, setProblem] = useState<ApiProblem>();
  const [busy, setBusy] = useState(false);
  const key = useRef(crypto.randomUUID());

  const send = async () => {
    setProblem(undefined);
    setBusy(true);
    try {
      const post: PostOnce = async <T,>(audience: Audience, path: string, body: unknown) =>
        (
          await callApi<T>(session, audience, path, {
            method: 'POST',
            headers: { 'idempotency-key': key.current },
            body,
          })
        ).body;
      onDone(await submit(post));
      key.current = crypto.randomUUID();
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void send();
  };

  return (
    <form aria-labelledby={headingId} className="panel" onSubmit={onSubmit}>
      <h2 id={headingId}>{title}</h2>
      {children}
      <div className="toolbar">
        <button type="submit" disabled={busy}>
          {confirm}
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      <ProblemMessage problem={problem} />
    </form>
  );
}

/** "Shipment 1f… recorded: 3 units." */
export function unitsRecorded(what: string, id: string, lines: readonly { quantity: number }[]): string {
  const units = lines.reduce((sum, line) => sum + line.quantity, 0);
  return `${what} ${id} recorded: ${units} unit${units === 1 ? '' : 's'}.`;
}
