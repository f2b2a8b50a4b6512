// The contract over HTTP, for the page the web host serves (and for tests, which drive it against
// the real server). Calls are POST /api/rpc/<method> with the session token in the Authorization
// header; events are read from /api/events as Server-Sent Events through fetch (EventSource
// cannot send the header, and the token must never go into a URL that could be logged).

import { parseEvent, parseResponse, type ContractClient, type ResponseOf } from '../../shared/contract/client.ts';
import type { ContractEventListener } from '../../shared/contract/events.ts';
import type { MethodName, RequestOf } from '../../shared/contract/methods.ts';
import { fail } from '../../shared/protocol/result.ts';

/**
 * What a page says when the web host is gone (stopped with Ctrl-C, its terminal closed): a
 * sentence for the person at the page, with no method name and no transport code in it.
 */
export const SERVER_STOPPED =
  'The Sandbox Packs server has stopped or cannot be reached. Start it again in a terminal (the same command that started it), then open the new address it prints: the old one stops working when the server stops.';

export interface HttpClientOptions {
  /** Delay before the event stream reconnects after it dropped. */
  readonly reconnectMs?: number;
}

export function createHttpClient(baseUrl: string, token: string, options: HttpClientOptions = {}): ContractClient & { close(): void } {
  const base = baseUrl.replace(/\/+$/, '');
  const authorization = `Bearer ${token}`;
  const listeners = new Set<ContractEventListener>();
  let stream: AbortController | undefined;
  let reconnect: ReturnType<typeof setTimeout> | undefined;

  async function call<M extends MethodName>(method: M, request: RequestOf<M>): Promise<ResponseOf<M>> {
    let response: Response;
    try {
      response = await fetch(`${base}/api/rpc/${encodeURIComponent(method)}`, {
        method: 'POST',
        headers: { Authorization: authorization, 'Content-Type': 'application/json' },
        body: JSON.stringify(request),
      });
    } catch {
      return fail('service-unreachable', SERVER_STOPPED);
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      return fail('invalid-data', `The Sandbox Packs server answered with something that is not the app's data (HTTP ${response.status}); reload the page.`);
    }
    return parseResponse(method, body);
  }

  function dispatch(raw: unknown): void {
    const event = parseEvent(raw);
    if (event === undefined) return;
    for (const listener of [...listeners]) listener(event);
  }

  async function readStream(controller: AbortController): Promise<void> {
    const response = await fetch(`${base}/api/events`, { headers: { Authorization: authorization, Accept: 'text/event-stream' }, signal: controller.signal });
    if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (data === '') continue;
        try {
          dispatch(JSON.parse(data));
        } catch {
          // A frame that is not JSON is not a contract event; skip it.
        }
      }
    }
  }

  function connect(): void {
    const controller = new AbortController();
    stream = controller;
    readStream(controller)
      .catch(() => undefined)
      .finally(() => {
        if (stream !== controller || controller.signal.aborted || listeners.size === 0) return;
        reconnect = setTimeout(connect, options.reconnectMs ?? 1000);
      });
  }

  function disconnect(): void {
    clearTimeout(reconnect);
    reconnect = undefined;
    stream?.abort();
    stream = undefined;
  }

  return {
    call,
    onEvent(listener) {
      const entry: ContractEventListener = (event) => listener(event);
      listeners.add(entry);
      if (stream === undefined) connect();
      return () => {
        listeners.delete(entry);
        if (listeners.size === 0) disconnect();
      };
    },
    close() {
      listeners.clear();
      disconnect();
    },
  };
}
