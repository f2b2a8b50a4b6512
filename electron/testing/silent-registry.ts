// A registry that never answers: a TCP server on 127.0.0.1 that accepts every connection, reads
// what is sent and writes nothing back (a hung registry or a proxy that swallows requests). It
// counts connections, so a test can wait until npm is really waiting on it.

import net from 'node:net';

export interface SilentRegistry {
  /** http://127.0.0.1:PORT/ */
  readonly url: string;
  /** Connections accepted so far. */
  readonly connections: () => number;
  /** Resolves once at least `count` connections were accepted. */
  waitForConnections(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startSilentRegistry(): Promise<SilentRegistry> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const waiters = new Set<() => void>();
  const server = net.createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    for (const wake of [...waiters]) wake();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    connections: () => accepted,
    waitForConnections: (count, timeoutMs = 60_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the silent registry saw ${accepted} connection(s), not ${count}, within ${timeoutMs} ms`));
        }, timeoutMs);
        const check = (): void => {
          if (accepted < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
