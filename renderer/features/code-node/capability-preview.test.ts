import { describe, expect, it } from 'vitest';
import { capabilityPreview } from './capability-preview.ts';

describe('capability preview', () => {
  it("gives every JS module all of the node's grants, and a module no pack provides nothing", () => {
    const preview = capabilityPreview(
      [
        { specifier: 'a', kind: 'js' },
        { specifier: 'b', kind: undefined },
      ],
      { fetch: { hosts: ['api.example.com'] }, workspace: true, secrets: ['TOKEN'] },
    );
    const reach = ['network: fetch to api.example.com', "workspace: read and write files in the workflow's workspace", 'secrets: TOKEN'];
    expect(preview).toEqual([
      { specifier: 'a', kind: 'js', reach },
      { specifier: 'b', kind: 'unknown', reach: ['nothing yet: no installed pack provides it, so the run refuses it'] },
    ]);
  });

  it('says plainly when the node grants nothing, and what a WASM module can do', () => {
    expect(capabilityPreview([{ specifier: 'a', kind: 'js' }], undefined)[0]!.reach).toEqual([
      'nothing outside the sandbox: this node grants no network, workspace or secrets',
    ]);
    expect(capabilityPreview([{ specifier: 'w', kind: 'wasm' }], { workspace: true })[0]!.reach[0]).toMatch(/^numbers in, numbers out/);
  });

  it('says an isolated module reaches none of the grants, whatever the node is granted, and a missing one still nothing', () => {
    const grants = { fetch: { hosts: ['api.example.com'] }, workspace: true, secrets: ['TOKEN'] };
    const preview = capabilityPreview(
      [
        { specifier: '@acme/sandbox-yaml', kind: 'js', isolation: true },
        { specifier: 'w', kind: 'wasm', isolation: true },
        { specifier: 'gone', kind: undefined, isolation: true },
        { specifier: 'a', kind: 'js', isolation: false },
      ],
      grants,
    );
    expect(preview.map((line) => line.reach)).toEqual([
      ["@acme/sandbox-yaml runs isolated: it cannot reach this node's network, workspace or secrets, and sees only the values passed to it."],
      ["w runs isolated: it cannot reach this node's network, workspace or secrets, and sees only the values passed to it."],
      ['nothing yet: no installed pack provides it, so the run refuses it'],
      ['network: fetch to api.example.com', "workspace: read and write files in the workflow's workspace", 'secrets: TOKEN'],
    ]);
  });
});
