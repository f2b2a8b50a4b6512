// eslint-scope ships no types; this declares only the part the forbidden-global scan uses.
declare module 'eslint-scope' {
  import type { Node, Identifier } from 'acorn';
  export interface Reference {
    readonly identifier: Identifier;
    readonly resolved: unknown;
  }
  export interface Scope {
    readonly through: readonly Reference[];
  }
  export interface ScopeManager {
    readonly globalScope: Scope;
  }
  export function analyze(
    ast: Node,
    options: { ecmaVersion: number; sourceType: 'module' | 'script'; fallback?: 'iteration'; childVisitorKeys?: Record<string, readonly string[]> | null },
  ): ScopeManager;
}
