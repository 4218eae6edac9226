import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { requestProblem } from './error-problems';
import type { Logger } from './logger';
import { RequestError } from './request-error';

/** What Node's parser or timers reported, as the request error the client is told of. */
function requestErrorOf(code: string | undefined): RequestError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new RequestError('HEADERS_TOO_LARGE', 'The request headers are larger than this server accepts.');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new RequestError(
        'PAYLOAD_TOO_LARGE',
        'The chunk extensions of the request body are larger than this server accepts.',
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new RequestError('REQUEST_TIMEOUT', 'The request did not arrive whole in time.');
    default:
      return new RequestError('MALFORMED_REQUEST', 'The request is not valid HTTP/1.1.');
  }
}

/**
 * For `server.on('clientError', …)`: Node's own answers to a request it cannot
 * parse (400), whose headers are too large (431) or too slow (408) are bare
 * text, without the problem+json and X-Request-Id of every other response.
 * This answers them as problems on the socket, then closes it, and logs one
 * line with the request id, since no access log line will.
 */
export function clientErrorHandler(logger?: Logger): (error: Error, socket: Duplex) => void {
  return function answerClientError(error, socket) {
    const code = (error as NodeJS.ErrnoException).code;
    // Node's own check: once a response on this connection has sent its headers, another would corrupt it.
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const problem = requestProblem(requestErrorOf(code));
    const body = JSON.stringify(problem);
    const requestId = randomUUID();
    const head = [
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}`,
      'Content-Type: application/problem+json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      'X-Content-Type-Options: nosniff',
      'Connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
    logger?.info('request refused by the HTTP parser', {
      status: problem.status,
      code: problem.code,
      cause: code,
      requestId,
    });
  };
}
