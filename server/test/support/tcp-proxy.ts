/**
 * A TCP proxy in front of a real server (PostgreSQL) that a test controls: stop it (connections
 * refused, open ones cut), start it again on the same port, or make it hang (bytes are taken and
 * never passed on), without touching the server behind it.
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
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let hanging = false;
  let port = 0;
  let server: net.Server | undefined;
  const listen = async () => {
    if (server) return;
    server = net.createServer((client) => {
      const upstream = net.connect(targetPort, targetHost);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.on('data', (d) => void (hanging || upstream.write(d)));
      upstream.on('data', (d) => void (hanging || client.write(d)));
      client.on('close', () => upstream.destroy());
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
    close: stop,
  };
}
