import net from 'node:net';

export interface FreezableProxy {
  /** host:port to connect to instead of the target. */
  readonly port: number;
  /** Stops forwarding in both directions: connections stay open, bytes wait (a stalled network or a frozen server). */
  freeze(): void;
  /** Forwards again, including what waited. */
  thaw(): void;
  /** Refuses new connections and cuts the open ones (a server that went down). */
  down(): Promise<void>;
  /** Accepts connections again after `down`. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP proxy on loopback in front of `target`, for fault tests: the service
 * under test connects through it, and the test freezes or cuts the link.
 */
export async function freezableProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<FreezableProxy> {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  let frozen = false;
  // Unpiped and paused, a socket keeps what arrives in its buffers until it is piped again (pause alone is undone by
  // 'drain').
  const setFlowing = () => {
    for (const { client, upstream } of pairs) {
      if (frozen) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      } else {
        client.pipe(upstream);
        upstream.pipe(client);
      }
    }
  };
  const onConnection = (client: net.Socket) => {
    const upstream = net.connect(targetPort, targetHost);
    const pair = { client, upstream };
    pairs.add(pair);
    if (!frozen) {
      client.pipe(upstream);
      upstream.pipe(client);
    }
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  };
  let server = net.createServer(onConnection);
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const stop = async () => {
    for (const { client, upstream } of pairs) {
      client.destroy();
      upstream.destroy();
    }
    pairs.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    port,
    freeze() {
      frozen = true;
      setFlowing();
    },
    thaw() {
      frozen = false;
      setFlowing();
    },
    down: stop,
    async up() {
      server = net.createServer(onConnection);
      await listen(port);
    },
    close: stop,
  };
}
