import { describe, expect, it } from 'vitest';
import { WorkflowGrantsSchema } from '../../../shared/protocol/workflow.ts';
import { normalizeGrants } from './grants-editor.tsx';

describe('normalizeGrants', () => {
  it('omits what is not granted, so a node without grants saves none', () => {
    expect(normalizeGrants([], false, [])).toBeUndefined();
    expect(normalizeGrants(['api.example.com'], false, [])).toEqual({ fetch: { hosts: ['api.example.com'] } });
    const all = normalizeGrants(['a.example'], true, ['TOKEN']);
    expect(all).toEqual({ fetch: { hosts: ['a.example'] }, workspace: true, secrets: ['TOKEN'] });
    expect(WorkflowGrantsSchema.parse(all)).toEqual(all);
  });
});
