// Discovery on disk: list the install root's package folders, read each package.json, and hand
// every sandbox pack to the pure validators in shared/packs with contained read powers. Nothing a
// pack ships is ever executed here; npm entries go to the injected compiler port.
//
// Discovery is total: the app, `discover`, `run` and `serve` all start from it, so one pack must
// never stop it. A compiler port that throws skips that one module with the reason; anything else
// that throws while one pack is examined rejects that pack with the reason; the others go on.
// And no pack's rows can break an answer: loadPack holds every one to the bounds of the catalog's
// answer schemas (shared/packs/answer-bounds.ts), so summaries and diagnostics always answer.

import { realpath, stat } from 'node:fs/promises';
import { formatBytes } from '../../shared/protocol/limits.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { loadPack, type LoadedPack, type PackPowers } from '../../shared/packs/pack-loader.ts';
import type { NpmCompile } from '../../shared/packs/pack-graph.ts';
import { checkRoot, listPackFolders, type PackFolder } from './install-root.ts';
import type { NpmModuleCompiler } from './npm-compiler-port.ts';
import { PACKAGE_JSON_MAX_BYTES, packReadPowers, readContained } from './pack-files.ts';
import { sha256Hex } from './sha256.ts';

export interface DiscoverOptions {
  /** A managed root's ledger pack names: only these folders are examined. */
  readonly onlyPacks?: ReadonlySet<string>;
  readonly compiler?: NpmModuleCompiler;
  /** Packs examined at once. */
  readonly concurrency?: number;
}

export interface Discovery {
  /** The root as given. */
  readonly root: string;
  /** Every pack found, sorted by name. Packages that are not sandbox packs are not listed. */
  readonly packs: readonly LoadedPack[];
}

export async function discover(root: string, options: DiscoverOptions = {}): Promise<Result<Discovery, 'root-unreadable'>> {
  const rootReal = await checkRoot(root);
  if (!rootReal.ok) return rootReal;
  const folders = await listPackFolders(rootReal.value, options.onlyPacks);
  if (!folders.ok) return folders;

  const found: (LoadedPack | undefined)[] = new Array(folders.value.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < folders.value.length) {
      const index = next++;
      const folder = folders.value[index] as PackFolder;
      found[index] = await discoverFolderTotal(folder, options.onlyPacks !== undefined, options.compiler);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 8, folders.value.length)) }, worker));
  const packs = found.filter((p): p is LoadedPack => p !== undefined).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return ok({ root, packs });
}

function missing(folderName: string, managed: boolean, why: string): LoadedPack | undefined {
  if (!managed) return undefined;
  return {
    name: folderName,
    version: '',
    status: 'rejected',
    code: 'not-installed',
    reason: `${folderName} is in the ledger but ${why}.`,
    warnings: [],
    modules: [],
    private: false,
    internalPaths: [],
  };
}

const why = (error: unknown): string => (error instanceof Error ? error.message : String(error)).slice(0, 500);

async function discoverFolderTotal(folder: PackFolder, managed: boolean, compiler?: NpmModuleCompiler): Promise<LoadedPack | undefined> {
  try {
    return await discoverFolder(folder, managed, compiler);
  } catch (error) {
    return {
      name: folder.folderName,
      version: '',
      status: 'rejected',
      code: 'internal',
      reason: `Discovering ${folder.folderName} failed unexpectedly (${why(error)}); the pack is left out.`,
      warnings: [],
      modules: [],
      private: false,
      internalPaths: [],
    };
  }
}

async function discoverFolder(folder: PackFolder, managed: boolean, compiler?: NpmModuleCompiler): Promise<LoadedPack | undefined> {
  let packReal: string;
  try {
    packReal = await realpath(folder.dir);
    if (!(await stat(packReal)).isDirectory()) return missing(folder.folderName, managed, 'its folder is not a directory');
  } catch {
    return missing(folder.folderName, managed, 'its folder is missing from node_modules');
  }
  const pkg = await readContained(packReal, 'package.json', PACKAGE_JSON_MAX_BYTES);
  if (!pkg.ok) {
    if (pkg.code === 'file-too-large') {
      return {
        name: folder.folderName,
        version: '',
        status: 'rejected',
        code: 'package-json-invalid',
        reason: `package.json is larger than ${formatBytes(PACKAGE_JSON_MAX_BYTES)}.`,
        warnings: [],
        modules: [],
        private: false,
        internalPaths: [],
      };
    }
    return missing(folder.folderName, managed, 'it has no readable package.json');
  }
  // Invalid UTF-8 becomes U+FFFD; JSON.parse and the schemas then judge the text as usual.
  const text = new TextDecoder('utf-8').decode(pkg.bytes);
  const compileNpm: NpmCompile | undefined = compiler
    ? async (request) => {
        try {
          return await compiler.compile({ packDir: packReal, ...request });
        } catch (error) {
          return fail('npm-bundle-failed', `${request.specifier}: the npm compiler failed on "${request.npmName}" (${why(error)}).`);
        }
      }
    : undefined;
  const powers: PackPowers = { ...packReadPowers(packReal), sha256: sha256Hex, ...(compileNpm ? { compileNpm } : {}) };
  const loaded = await loadPack({ folderName: folder.folderName, packageJsonText: text, packageJsonBytes: pkg.bytes.byteLength }, powers);
  if (loaded.kind === 'pack') return loaded.pack;
  // A register pack in the ledger has host code and no sandbox modules: nothing for the catalog,
  // and nothing wrong (the ledger row says what it is).
  return undefined;
}
