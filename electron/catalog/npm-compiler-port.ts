// The port through which discovery asks for `{ kind: "js", npm: "..." }` entries to be compiled.
// Discovery never bundles anything itself: electron/compiler/ implements this with esbuild, its
// forbidden-global scan and admission probe, and the catalog is handed an instance. Without one,
// npm entries are skipped with `npm-bundle-failed`. Whatever comes back still goes through the
// same static JS checks as authored code; the compiler may hand back its own verdict of those
// checks, which discovery reuses only for the exact bytes under the same analyzer
// (shared/packs/pack-graph.ts, StaticVerdict) instead of parsing the bundle a second time.

import type { StaticVerdict } from '../../shared/packs/pack-graph.ts';
import type { ErrorCode } from '../../shared/protocol/codes.ts';
import type { PackWarning } from '../../shared/protocol/catalog.ts';
import type { Result } from '../../shared/protocol/result.ts';

export interface NpmCompileRequest {
  /** Real path of the pack's directory; the npm package is resolved from here. */
  readonly packDir: string;
  readonly packName: string;
  readonly packVersion: string;
  /** The manifest's `npm` field: the package to bundle, or a subpath of it ("csv-parse/browser/esm/sync"). Untrusted text. */
  readonly npmName: string;
  /** The specifier the bundle will be imported by. */
  readonly specifier: string;
}

export interface NpmCompileResult {
  /** One self-contained ESM source with no imports. */
  readonly source: string;
  /** Compiler name, version and options, e.g. "esbuild@0.28.2;es2023;esm;minify". Part of the graph digest. */
  readonly compilerId: string;
  /** Digest of everything the bundle was built from. Part of the graph digest. */
  readonly inputsDigest: string;
  readonly warnings: PackWarning[];
  /** The static checks' verdict on `source`, when it passed them with no imports. */
  readonly analysis?: StaticVerdict;
}

export interface NpmModuleCompiler {
  compile(request: NpmCompileRequest): Promise<Result<NpmCompileResult, ErrorCode>>;
}
