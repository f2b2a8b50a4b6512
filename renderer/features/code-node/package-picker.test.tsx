// The picker's Isolate toggle, rendered by React: each chip has a checkbox named for its module,
// checked from the declaration, and an isolated chip says what isolation means; the trust
// sentence over the list stays as it was for every other module.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import type { SandboxModuleDeclaration } from '../../../shared/protocol/declaration.ts';
import { moduleBySpecifier } from './declarations.ts';
import { description, PackagePicker } from './package-picker.tsx';

const mod = (specifier: string): ModuleSummary => ({
  specifier,
  packName: '@acme/sandbox-yaml',
  packVersion: '1.0.0',
  kind: 'js',
  status: 'ready',
  digest: 'b'.repeat(64),
  summary: `${specifier}: YAML`,
  hasSkill: false,
});
const modules = [mod('@acme/sandbox-yaml'), mod('@acme/sandbox-yaml/dump')];
const SENTENCE = "@acme/sandbox-yaml runs isolated: it cannot reach this node's network, workspace or secrets, and sees only the values passed to it.";

function render(packages: SandboxModuleDeclaration[]): string {
  return renderToStaticMarkup(<PackagePicker nodeId="node-1" modules={modules} byId={moduleBySpecifier(modules)} packages={packages} onChange={() => {}} />);
}
const checkbox = (html: string, specifier: string) => html.match(new RegExp(`<input type="checkbox"[^>]*aria-label="Isolate ${specifier}"[^>]*/>`))?.[0];

describe('PackagePicker isolation', () => {
  it('shows an unchecked Isolate toggle per chip and only the trust sentence while nothing is isolated', () => {
    const html = render([{ specifier: '@acme/sandbox-yaml' }, { specifier: '@acme/sandbox-yaml/dump' }]);
    expect(checkbox(html, '@acme/sandbox-yaml')).toBeDefined();
    expect(checkbox(html, '@acme/sandbox-yaml')).not.toContain('checked');
    expect(checkbox(html, '@acme/sandbox-yaml/dump')).toBeDefined();
    expect(html).toContain('Importing a module means trusting it with that node&#x27;s sandbox capabilities');
    expect(html).not.toContain('runs isolated');
  });

  it('checks the toggle of an isolated declaration and says, for that module only, what it cannot reach', () => {
    const html = render([{ specifier: '@acme/sandbox-yaml', isolation: true }, { specifier: '@acme/sandbox-yaml/dump' }]);
    expect(checkbox(html, '@acme/sandbox-yaml')).toContain('checked=""');
    expect(checkbox(html, '@acme/sandbox-yaml/dump')).not.toContain('checked');
    expect(html).toContain(`<p class="isolated-note small">${SENTENCE.replace(/'/g, '&#x27;')}</p>`);
    expect(html.match(/runs isolated/g)).toHaveLength(1);
  });

  it('keeps the toggle on a saved declaration no installed pack provides', () => {
    const html = render([{ specifier: '@gone/pack', isolation: true }]);
    expect(checkbox(html, '@gone/pack')).toContain('checked=""');
  });
});

describe('a WASM module in the picker', () => {
  const wasm = (summary: string): ModuleSummary => ({
    ...mod('@acme/hash/wasm'),
    kind: 'wasm',
    summary,
    signatures: [{ as: 'digest', params: ['bytes'], results: ['string'] }],
  });
  it('ends its description as a sentence before the exports with their types', () => {
    expect(description(wasm('@acme/hash/wasm (wasm): Hashes in WebAssembly'))).toBe('Hashes in WebAssembly. Exports digest(bytes) → string (async).');
    expect(description(wasm('@acme/hash/wasm (wasm): Hashes.'))).toBe('Hashes. Exports digest(bytes) → string (async).');
    expect(description(wasm('@acme/hash/wasm (wasm)'))).toBe('Exports digest(bytes) → string (async).');
  });
});
