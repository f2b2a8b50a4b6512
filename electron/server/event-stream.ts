// Contract events over Server-Sent Events. Each connected client gets one subscription to the
// event hub; the subscription and the keep-alive timer are released when the client goes away or
// the server closes, so a reloaded page never leaves a listener behind. At most `maxStreams` are
// open at once (each holds a socket and a hub listener for as long as the client likes); one more
// is answered 429 with a sentence, and the client's reconnect finds room once a tab closes.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventHub } from '../../shared/contract/events.ts';
import { fail } from '../../shared/protocol/result.ts';
import { BASE_HEADERS, sendFailure } from './responses.ts';

const KEEP_ALIVE_MS = 15_000;

export interface EventStreams {
  open(req: IncomingMessage, res: ServerResponse): void;
  closeAll(): void;
  readonly size: number;
}

export function createEventStreams(hub: EventHub, maxStreams: number): EventStreams {
  const open = new Set<() => void>();
  return {
    open(req, res) {
      if (open.size >= maxStreams) {
        sendFailure(
          res,
          fail('too-many-connections', `This app already has ${maxStreams} event streams open (one per tab or window that shows it); close one, then reload.`),
          429,
          { Connection: 'close', 'Retry-After': '5' },
        );
        return;
      }
      res.writeHead(200, {
        ...BASE_HEADERS,
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        Connection: 'keep-alive',
      });
      res.write(': connected\n\n');
      const unsubscribe = hub.subscribe((event) => {
        res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      });
      const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
      keepAlive.unref();
      const close = () => {
        if (!open.delete(close)) return;
        clearInterval(keepAlive);
        unsubscribe();
        res.end();
      };
      open.add(close);
      req.on('close', close);
      res.on('close', close);
    },
    closeAll() {
      for (const close of [...open]) close();
    },
    get size() {
      return open.size;
    },
  };
}
