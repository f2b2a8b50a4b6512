// The editor's completions of a module's exports outside a finished import (export-context.ts
// finds where): members after `Papa.` for a default or namespace import, and names inside an
// unfinished `import { d`, which finish the statement and declare the module on choosing one.
// A namespace's members are the module's export list; a default export's members are not in the
// catalog (a CommonJS package's default is an object built at run time), so they are asked of the
// sandbox itself through `members` (module-members.ts) for a module the node declares.

import type { Completion, CompletionContext, CompletionResult, CompletionSource } from '@codemirror/autocomplete';
import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import { importBindings, memberContext, openNamedImport } from './export-context.ts';
import { wasmSignatureText } from './import-context.ts';

export interface MemberInfo {
  readonly name: string;
  /** `typeof` the member: "function", "object", "string", … */
  readonly type: string;
}

export interface ExportCatalog {
  readonly modules: readonly ModuleSummary[];
  readonly declared: ReadonlySet<string>;
  readonly declare: (specifier: string) => void;
  /** Members of the module's default export, from a run in the sandbox; undefined when they cannot be known. */
  readonly members?: (module: ModuleSummary) => Promise<readonly MemberInfo[] | undefined>;
}

const WINDOW = 4000;

function exportDetail(module: ModuleSummary, name: string): string {
  if (module.kind !== 'wasm') return `from ${module.specifier}`;
  const signature = module.signatures?.find((s) => s.as === name);
  return signature ? wasmSignatureText(signature) : 'WASM export (async)';
}

const typeOf = (member: MemberInfo): string => (member.type === 'function' ? 'function' : member.type === 'object' ? 'namespace' : 'property');

export function exportCompletions(catalog: () => ExportCatalog | undefined): CompletionSource {
  return async (context: CompletionContext): Promise<CompletionResult | null> => {
    const data = catalog();
    if (!data) return null;
    const doc = context.state.doc;
    const before = doc.sliceString(Math.max(0, context.pos - WINDOW), context.pos);
    const line = doc.lineAt(context.pos);
    const after = doc.sliceString(context.pos, Math.min(doc.length, line.to + 200));

    const member = memberContext(before);
    if (member) {
      const binding = importBindings(doc.toString()).get(member.object);
      const module = binding && data.modules.find((m) => m.specifier === binding.specifier && m.status === 'ready');
      if (!binding || !module) return null;
      const from = context.pos - member.typed.length;
      if (binding.kind === 'namespace') {
        const options: Completion[] = (module.exports ?? []).map((name) => ({
          label: name,
          type: module.kind === 'wasm' ? 'function' : 'variable',
          detail: exportDetail(module, name),
          boost: 10,
        }));
        return { from, options, validFor: /^[A-Za-z0-9_$]*$/ };
      }
      if (!data.declared.has(module.specifier) || !data.members) return null;
      const members = await data.members(module);
      if (!members || context.aborted) return null;
      const options: Completion[] = members.map((m) => ({
        label: m.name,
        type: typeOf(m),
        detail: `${m.type} · default export of ${module.specifier}`,
        boost: 10,
      }));
      return { from, options, validFor: /^[A-Za-z0-9_$]*$/ };
    }

    const open = openNamedImport(before, after);
    if (!open) return null;
    const from = context.pos - open.typed.length;
    // Names listed already come from one module: only modules exporting them all fit the statement.
    const options: Completion[] = data.modules
      .filter((m) => m.status === 'ready' && open.already.every((name) => m.exports?.includes(name)))
      .flatMap((m) =>
        (m.exports ?? [])
          .filter((name) => name !== 'default' && !open.already.includes(name))
          .map((name): Completion => {
            const declared = data.declared.has(m.specifier);
            return {
              label: name,
              type: m.kind === 'wasm' ? 'function' : 'variable',
              detail: declared ? exportDetail(m, name) : `from ${m.specifier} · not declared: choosing it adds it to this node`,
              boost: declared ? 10 : 5,
              apply: (view, _completion, applyFrom, applyTo) => {
                const insert = open.closed ? name : `${name} } from "${m.specifier}";`;
                view.dispatch({ changes: { from: applyFrom, to: applyTo, insert }, selection: { anchor: applyFrom + insert.length } });
                if (!declared) data.declare(m.specifier);
              },
            };
          }),
      );
    return options.length === 0 ? null : { from, options, validFor: /^[A-Za-z0-9_$]*$/ };
  };
}
