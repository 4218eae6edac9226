import { connect } from 'node:net';

export interface RawHttpResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * Sends bytes as they are, what fetch will not send (a Transfer-Encoding of its
 * own, a malformed request line, oversized headers), on a fresh connection,
 * and reads what the server answers until it closes the connection: ask for
 * that with `Connection: close`, or send something it must close on.
 */
export async function rawHttpRequest(url: string, ...parts: (string | Buffer)[]): Promise<RawHttpResponse> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  // A server that answers before reading everything may reset the connection: what it answered still counts.
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()).on('error', () => {}));
  for (const part of parts) socket.write(part);
  await closed;
  const text = Buffer.concat(received).toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = (split < 0 ? text : text.slice(0, split)).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: split < 0 ? '' : text.slice(split + 4) };
}
