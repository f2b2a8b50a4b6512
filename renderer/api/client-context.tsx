// How components get the contract client: from React context, never from a global and never by
// knowing the transport. `useContractQuery` is the one way a component reads data from main, so
// react-query caches each method+request pair and a `catalog-changed` event refreshes them all.

import { createContext, useContext, useEffect, type ReactNode } from 'react';
import { useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import type { ContractClient } from '../../shared/contract/client.ts';
import type { MethodName, RequestOf, ValueOf } from '../../shared/contract/methods.ts';
import type { Failure } from '../../shared/protocol/result.ts';

const ClientContext = createContext<ContractClient | undefined>(undefined);

export function ContractClientProvider({ client, children }: { client: ContractClient; children: ReactNode }) {
  const queries = useQueryClient();
  useEffect(
    () =>
      client.onEvent((event) => {
        // A failed trust changes the ledger (trusted, setup failed) without reloading the catalog,
        // so the end of any operation refreshes every view too, in every window.
        if (event.type === 'catalog-changed' || (event.type === 'install-progress' && (event.stage === 'done' || event.stage === 'failed')))
          void queries.invalidateQueries();
      }),
    [client, queries],
  );
  return <ClientContext.Provider value={client}>{children}</ClientContext.Provider>;
}

export function useContractClient(): ContractClient {
  const client = useContext(ClientContext);
  if (client === undefined) throw new Error('useContractClient needs a <ContractClientProvider> above it');
  return client;
}

/** A failure from main, thrown into react-query so `error` carries the code and the sentence. */
export class ContractFailure extends Error {
  override readonly name = 'ContractFailure';
  constructor(readonly failure: Failure) {
    super(failure.message);
  }
}

export function useContractQuery<M extends MethodName>(method: M, request: RequestOf<M>): UseQueryResult<ValueOf<M>, ContractFailure> {
  const client = useContractClient();
  return useQuery({
    queryKey: [method, request],
    queryFn: async () => {
      const result = await client.call(method, request);
      if (!result.ok) throw new ContractFailure(result);
      return result.value;
    },
  });
}
