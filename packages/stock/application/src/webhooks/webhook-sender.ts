import { Agent, request } from 'undici';
import { guardedConnector } from './safe-target';
import type { SignedMessage } from './signing';

export interface SenderOptions {
  /** Send to loopback and private addresses too (tests, private deployments). */
  readonly allowPrivateTargets: boolean;
  readonly connectTimeoutMs: number;
  /** How long the receiver may take to answer its headers, and then between body chunks. */
  readonly answerTimeoutMs: number;
  /** How much of an answer's body is read (for the attempt's error); the rest is dropped. */
  readonly maxAnswerBytes: number;
}

/** A receiver's answer, or why there was none. */
export type SendResult =
  { readonly statusCode: number; readonly body: string } | { readonly statusCode: null; readonly error: string };

/** Posts signed messages; `close` ends its connections. */
export interface WebhookSender {
  send(url: string, message: SignedMessage): Promise<SendResult>;
  close(): Promise<void>;
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }, cap: number): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= cap) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, cap).toString('utf8');
}

/**
 * An undici sender: redirects are never followed (a 3xx is an answer like any other non-2xx), the connection is
 * checked against forbidden addresses as it is made, and connect and answer timeouts apply.
 */
export function undiciSender(options: SenderOptions): WebhookSender {
  const agent = new Agent({
    connect: guardedConnector(options.allowPrivateTargets, options.connectTimeoutMs),
    headersTimeout: options.answerTimeoutMs,
    bodyTimeout: options.answerTimeoutMs,
  });
  return {
    async send(url, { body, headers }) {
      try {
        const answer = await request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', 'user-agent': 'commerce-webhooks/1', ...headers },
          body,
        });
        // A 2xx's body is never kept (only a failure's, for its attempt): dropped unread, the connection stays open.
        if (answer.statusCode >= 200 && answer.statusCode < 300) {
          await answer.body.dump({ limit: options.maxAnswerBytes }).catch(() => undefined);
          return { statusCode: answer.statusCode, body: '' };
        }
        const text = await readCapped(answer.body, options.maxAnswerBytes).catch(() => '');
        return { statusCode: answer.statusCode, body: text };
      } catch (error) {
        const cause = (error as { cause?: unknown }).cause;
        const reason = error instanceof Error ? error.message : String(error);
        return { statusCode: null, error: cause instanceof Error ? `${reason}: ${cause.message}` : reason };
      }
    },
    close: () => agent.close(),
  };
}
