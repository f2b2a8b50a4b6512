// The compatibility corpus's offline subset (electron/testing/corpus/offline-subset.ts): a few of
// the libraries `npm run bench -- corpus` runs, from pack tarballs committed under
// fixtures/corpus/ (the library bundled inside), installed by the real installer with a registry
// nobody listens on — so any network use fails the install — then discovered by the real catalog
// with the npm compiler and its admission probe, and each library's corpus smoke test run in the
// real sandbox kernel and, as the bench does, in bare quickjs-ng. The table's other rows need the
// registry; these four keep the whole path honest in `npm test`.

import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCatalog, type DiscoveryCatalog } from '../catalog/catalog.ts';
import { activePackNames, createInstaller } from '../install/index.ts';
import { SandboxPool } from '../runtime/sandbox/sandbox-pool.ts';
import { toKernelRequest } from '../../shared/protocol/kernel-request.ts';
import { runBare } from '../testing/corpus/bare-quickjs.ts';
import { corpusPackName, npmField } from '../testing/corpus/libraries.ts';
import { OFFLINE_SUBSET, corpusFixtureTarball } from '../testing/corpus/offline-subset.ts';
import { productCode } from '../testing/corpus/smoke.ts';
import { createNpmCompiler } from './npm-compiler.ts';

const UNREACHABLE = 'http://127.0.0.1:9/';

let root: string;
let catalog: DiscoveryCatalog;
let pool: SandboxPool;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'sp-corpus-offline-'));
  const installer = createInstaller({ root, registry: UNREACHABLE });
  for (const lib of OFFLINE_SUBSET) {
    const installed = await installer.install(corpusFixtureTarball(lib));
    if (!installed.ok) throw new Error(`installing ${lib.name}: ${installed.code}: ${installed.message}`);
  }
  const opened = await openCatalog({ root, onlyPacks: () => activePackNames(root), compiler: createNpmCompiler({ root }) });
  if (!opened.ok) throw new Error(opened.message);
  catalog = opened.value;
  pool = new SandboxPool({ size: 1 });
}, 300_000);

afterAll(async () => {
  await pool?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('the corpus offline subset', () => {
  it('installs every pack offline as an active sandbox-only pack, and discovery admits each module', async () => {
    const listed = await createInstaller({ root }).list();
    if (!listed.ok) throw new Error(listed.message);
    expect(listed.value.packs.map((p) => [p.name, p.status, p.installMode])).toEqual(
      OFFLINE_SUBSET.map((lib) => [corpusPackName(lib), 'active', 'sandbox-only']).sort(([a], [b]) => a!.localeCompare(b!)),
    );
    const byPack = new Map(catalog.summaries().map((s) => [s.packName, s]));
    for (const lib of OFFLINE_SUBSET) {
      const module = byPack.get(corpusPackName(lib));
      expect({ lib: lib.name, status: module?.status, code: module?.code }).toEqual({ lib: lib.name, status: 'ready', code: undefined });
    }
  });

  for (const lib of OFFLINE_SUBSET) {
    it(`${lib.name}@${lib.version}: its smoke test returns the expected value in the sandbox and in bare quickjs-ng`, async () => {
      const specifier = corpusPackName(lib);
      const resolution = catalog.resolveForExecution([{ specifier }]);
      if (!resolution.ok) throw new Error(`${resolution.code}: ${resolution.message}`);
      const result = await pool.run(toKernelRequest({ code: productCode(lib.smoke, specifier), resolution, timeoutMs: 10_000 }));
      if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
      expect(result.value).toEqual(lib.smoke.expect);
      const moduleId = catalog.summaries().find((s) => s.specifier === specifier)?.moduleId;
      expect(result.receipt.modules.map((m) => m.moduleId)).toEqual([moduleId]);

      const bare = await runBare(lib.smoke, npmField(lib), path.join(root, 'node_modules', ...specifier.split('/')), 1);
      if (!bare.ok) throw new Error(`bare ${bare.stage}: ${bare.error}`);
      expect(bare.value).toEqual(lib.smoke.expect);
    }, 60_000);
  }
});
