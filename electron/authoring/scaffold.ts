// `sandbox-packs create DIR`: write a working pack into a new (or empty) folder, from the
// templates in scaffold-templates.ts. With `wasm`, the AssemblyScript source is also compiled
// here, with the AssemblyScript compiler when this installation has it (a development checkout:
// it is a devDependency), so the new pack passes `check` at once; otherwise the author runs
// `npm install && npm run build` first, and the result says so.

import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PackageNameSchema } from '../../shared/protocol/manifest.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { ASC_FLAGS, GITIGNORE, INDEX_JS, WASM_BUILD_SCRIPT, WASM_MODULE, WASM_SOURCE, packageJson, skillMd } from './scaffold-templates.ts';

export interface ScaffoldOptions {
  readonly dir: string;
  /** The package name; by default the folder's name. */
  readonly name?: string;
  readonly wasm?: boolean;
}

export interface Scaffolded {
  readonly dir: string;
  readonly name: string;
  /** Pack-relative paths written, sorted. */
  readonly files: readonly string[];
  /** False when --wasm was asked for but no AssemblyScript compiler was available here. */
  readonly wasmBuilt?: boolean;
}

export async function scaffoldPack(options: ScaffoldOptions): Promise<Result<Scaffolded>> {
  const dir = path.resolve(options.dir);
  const name = options.name ?? path.basename(dir).toLowerCase();
  const valid = PackageNameSchema.safeParse(name);
  if (!valid.success) return fail('usage', `"${name}" is not a valid npm package name; give one with --name (e.g. --name @acme/sandbox-tools).`);
  const existing = await readdir(dir).catch(() => [] as string[]);
  if (existing.length > 0) return fail('usage', `${dir} is not empty; create a pack in a new or empty folder.`);

  const wasm = options.wasm === true;
  const files: Record<string, string | Uint8Array> = {
    'package.json': packageJson({ name, wasm }),
    'sandbox/index.js': INDEX_JS,
    'SKILL.md': skillMd({ name, wasm }),
    '.gitignore': GITIGNORE,
  };
  let wasmBuilt: boolean | undefined;
  if (wasm) {
    files[WASM_MODULE.source] = WASM_SOURCE;
    files['scripts/build-wasm.mjs'] = WASM_BUILD_SCRIPT;
    const binary = await compileAssemblyScript(WASM_SOURCE);
    wasmBuilt = binary !== undefined;
    if (binary) files[WASM_MODULE.file] = binary;
  }
  for (const [rel, content] of Object.entries(files)) {
    const target = path.join(dir, ...rel.split('/'));
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return ok({ dir, name, files: Object.keys(files).sort(), ...(wasmBuilt !== undefined ? { wasmBuilt } : {}) });
}

interface AscApi {
  main(
    argv: string[],
    options: {
      readFile?: (name: string) => string | null;
      writeFile?: (name: string, contents: Uint8Array) => void;
      stderr?: { write(chunk: unknown): boolean };
    },
  ): Promise<{ error: Error | null }>;
}

/** Compile one AssemblyScript source in memory with ASC_FLAGS, or undefined without a compiler. */
async function compileAssemblyScript(source: string): Promise<Uint8Array | undefined> {
  let asc: AscApi;
  try {
    // A variable specifier: bundlers must not pull the (optional, development-only) compiler in.
    const specifier = 'assemblyscript/asc';
    asc = ((await import(specifier)) as { default: AscApi }).default;
  } catch {
    return undefined;
  }
  let binary: Uint8Array | undefined;
  const { error } = await asc.main([WASM_MODULE.source, ...ASC_FLAGS, '--outFile', WASM_MODULE.file], {
    readFile: (name) => (name === WASM_MODULE.source ? source : null),
    writeFile: (name, contents) => {
      if (name.endsWith('.wasm')) binary = Uint8Array.from(contents);
    },
    stderr: { write: () => true },
  });
  return error ? undefined : binary;
}
