// The one way a component changes something in main: a react-query mutation over a contract
// method. A tagged failure is thrown as ContractFailure so `error.failure` keeps its code, and
// every answer invalidates the cached reads (unless the call changes nothing, like a run) (main also announces `catalog-changed`, but a
// settings or workflow change has no such event).

import { useMutation, useQueryClient, type UseMutationResult } from '@tanstack/react-query';
import type { MethodName, RequestOf, ValueOf } from '../../shared/contract/methods.ts';
import { ContractFailure, useContractClient } from './client-context.tsx';

export function useContractMutation<M extends MethodName>(
  method: M,
  options: { invalidate?: boolean } = {},
): UseMutationResult<ValueOf<M>, ContractFailure, RequestOf<M>> {
  const client = useContractClient();
  const queries = useQueryClient();
  return useMutation({
    mutationFn: async (request: RequestOf<M>) => {
      const result = await client.call(method, request);
      if (!result.ok) throw new ContractFailure(result);
      return result.value;
    },
    // A failed call may have changed state too (a refused rebuild leaves the pack needs-rebuild).
    onSettled: () => (options.invalidate === false ? undefined : queries.invalidateQueries()),
  });
}

/** A fresh id that ties install-progress events to the call that started them. */
export function newOperationId(prefix: string): string {
  const random = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('');
  return `${prefix}-${random}`;
}
