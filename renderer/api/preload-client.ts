// The contract over Electron IPC, through the one object the preload exposes. The preload passes
// raw values both ways; this client is where the renderer parses them, exactly as the HTTP client
// does, so a component cannot tell the two apart.

import { parseEvent, parseResponse, type ContractClient, type ResponseOf } from '../../shared/contract/client.ts';
import type { PreloadBridge } from '../../shared/contract/ipc-channels.ts';
import type { MethodName, RequestOf } from '../../shared/contract/methods.ts';
import { fail } from '../../shared/protocol/result.ts';

export function createPreloadClient(bridge: PreloadBridge): ContractClient {
  return {
    async call<M extends MethodName>(method: M, request: RequestOf<M>): Promise<ResponseOf<M>> {
      let raw: unknown;
      try {
        raw = await bridge.invoke(method, request);
      } catch {
        return fail('service-unreachable', 'The Sandbox Packs background process did not answer, so this was not done; quit the app and start it again.');
      }
      return parseResponse(method, raw);
    },
    onEvent(listener) {
      return bridge.onEvent((raw) => {
        const event = parseEvent(raw);
        if (event !== undefined) listener(event);
      });
    },
  };
}
