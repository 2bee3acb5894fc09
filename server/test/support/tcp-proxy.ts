/**
 * A TCP proxy in front of a real server (PostgreSQL) that a test controls: stop it (connections
 * refused, open ones cut), start it again on the same port, make it hang (bytes are taken and
 * never passed on), or cut the network between as a partition does (`blackhole`), without touching
 * the server behind it.
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Closes the port and cuts every open connection: the server looks gone. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** While on, new and open connections swallow what they get: the server looks hung. */
  hang(on: boolean): void;
  /**
   * On: a network partition. Nothing passes either way and no socket is closed (packets dropped
   * both ways): open connections go silent, new ones are taken but get no answer. What arrives is
   * read and dropped rather than left unread: the proxy has to see it to know which connections a
   * real cut leaves in TCP's backoff.
   *
   * Off: the link heals. New connections, and open ones that stayed quiet during the cut, pass
   * again at once. A connection that carried bytes during the cut (either way) stays silent: TCP
   * retransmits unacknowledged bytes with a backoff that doubles up to two minutes, so after a real
   * cut such a connection comes back only at its next retry, tens of seconds after the heal; here
   * it never does. The other side of it closing still closes it (a test leaves no server sessions
   * behind, where a real partition would: docs/operations.md).
   */
  blackhole(on: boolean): void;
  /** Connections that carried bytes during a cut, open now: they stay silent. */
  readonly stalled: number;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  /** Pairs (client side, server side) silenced by a cut. */
  const stalledPairs = new Set<net.Socket>();
  let hanging = false;
  let cut = false;
  let port = 0;
  let server: net.Server | undefined;
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  const listen = async () => {
    if (server) return;
    server = net.createServer((client) => {
      track(client);
      if (cut) {
        // The connection's first bytes (the startup message) go nowhere, and nothing answers.
        stalledPairs.add(client);
        client.on('data', () => undefined);
        client.on('close', () => stalledPairs.delete(client));
        return;
      }
      const upstream = net.connect(targetPort, targetHost);
      track(upstream);
      let stalled = false;
      // Bytes arriving during a cut silence the pair for good; outside one they pass unless it is silenced.
      const pass = (to: net.Socket) => (d: Buffer) => {
        if (cut && !stalled) {
          stalled = true;
          stalledPairs.add(client);
        }
        if (!stalled && !hanging) to.write(d);
      };
      client.on('data', pass(upstream));
      upstream.on('data', pass(client));
      client.on('close', () => {
        stalledPairs.delete(client);
        upstream.destroy();
      });
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.address() as net.AddressInfo).port;
  };
  const stop = async () => {
    const s = server;
    server = undefined;
    for (const sock of sockets) sock.destroy();
    if (s) await new Promise<void>((r) => s.close(() => r()));
  };
  await listen();
  return {
    get port() {
      return port;
    },
    stop,
    start: listen,
    hang: (on) => {
      hanging = on;
    },
    blackhole: (on) => {
      cut = on;
    },
    get stalled() {
      return stalledPairs.size;
    },
    close: stop,
  };
}
