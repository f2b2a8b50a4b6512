// Bench support (issue 27): Code node runs shaped like real ones. Each imports one real npm
// library through a pack installed by the real installer from a real local registry (Verdaccio,
// uplinked to npm): zod through a config-only pack made here, date-fns and marked through the
// first-party packs we ship. The kernel and web-host sections run these beside a trivial run,
// alternating one run of each in turn, so every worker sees several module sets one after another
// (as a workflow whose Code nodes import different libraries does).

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openCatalog } from '../../electron/catalog/catalog.ts';
import { createNpmCompiler } from '../../electron/compiler/npm-compiler.ts';
import { activePackNames, createInstaller } from '../../electron/install/index.ts';
import { toKernelRequest } from '../../shared/protocol/kernel-request.ts';
import { PACKS_DIR } from '../../electron/testing/bridge-pack-harness.ts';
import { startRegistry, type TestRegistry } from '../../electron/testing/verdaccio.ts';
import type { KernelRunRequest } from '../../shared/protocol/run.ts';

export interface LibraryRun {
  /** The library's name, for row labels. */
  readonly label: string;
  readonly code: string;
  /** The same import, using nothing of it but one binding: what importing alone costs. */
  readonly importOnly: string;
  readonly packages: readonly { readonly specifier: string }[];
  /** What the run must return (checked before anything is timed). */
  readonly expected: unknown;
}

const ZOD_PACK = '@bench/sandbox-zod';

export const TRIVIAL_RUN: LibraryRun = { label: 'trivial', code: 'return 1 + 1;', importOnly: 'return 1 + 1;', packages: [], expected: 2 };

export const LIBRARY_RUNS: readonly LibraryRun[] = [
  {
    label: 'zod',
    code: `import { z } from "${ZOD_PACK}";\nreturn z.object({ name: z.string(), age: z.number().int() }).parse({ name: "Ada", age: 36 }).age;`,
    importOnly: `import { z } from "${ZOD_PACK}";\nreturn typeof z.object;`,
    packages: [{ specifier: ZOD_PACK }],
    expected: 36,
  },
  {
    label: 'date-fns',
    code: 'import { addDays, formatISO } from "@nodetool-ai/sandbox-dates";\nreturn formatISO(addDays(new Date(Date.UTC(2024, 0, 31, 12)), 1), { representation: "date" });',
    importOnly: 'import { addDays } from "@nodetool-ai/sandbox-dates";\nreturn typeof addDays;',
    packages: [{ specifier: '@nodetool-ai/sandbox-dates' }],
    expected: '2024-02-01',
  },
  {
    label: 'marked',
    code: 'import { marked } from "@nodetool-ai/sandbox-markdown";\nreturn marked.parse("# Title\\n\\nSome *text*.");',
    importOnly: 'import { marked } from "@nodetool-ai/sandbox-markdown";\nreturn typeof marked.parse;',
    packages: [{ specifier: '@nodetool-ai/sandbox-markdown' }],
    expected: '<h1>Title</h1>\n<p>Some <em>text</em>.</p>\n',
  },
];

export interface LibraryRoot {
  /** A managed root with the packs installed. */
  readonly root: string;
  /** Each run of LIBRARY_RUNS as the kernel gets it (resolved through the real catalog). */
  kernelRequests(): Promise<KernelRunRequest[]>;
  dispose(): Promise<void>;
}

/** A config-only pack for zod, pinned to the version this repository depends on. */
async function zodPack(dir: string): Promise<void> {
  const version = (JSON.parse(await fs.readFile(path.join(PACKS_DIR, '..', 'node_modules', 'zod', 'package.json'), 'utf8')) as { version: string }).version;
  await fs.mkdir(dir, { recursive: true });
  const manifest = {
    name: ZOD_PACK,
    version: '1.0.0',
    license: 'MIT',
    dependencies: { zod: version },
    nodetool: { apiVersion: 1, sandboxModules: [{ name: '.', kind: 'js', npm: 'zod' }] },
  };
  await fs.writeFile(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Start a registry, publish the packs, install them into a fresh managed root, discover it once (compiling its npm modules). */
export async function installLibraryRoot(): Promise<LibraryRoot> {
  const registry: TestRegistry = await startRegistry({ localPackages: ['@bench/*'] });
  const work = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'sp-bench-libraries-')));
  const root = path.join(work, 'root');
  const dispose = async () => {
    try {
      await registry.stop();
    } finally {
      await fs.rm(work, { recursive: true, force: true });
    }
  };
  try {
    await zodPack(path.join(work, 'zod-pack'));
    await registry.publish(path.join(work, 'zod-pack'));
    for (const dir of ['sandbox-dates', 'sandbox-markdown']) await registry.publish(path.join(PACKS_DIR, dir));
    const installer = createInstaller({ root, registry: registry.url });
    for (const name of [ZOD_PACK, '@nodetool-ai/sandbox-dates', '@nodetool-ai/sandbox-markdown']) {
      const installed = await installer.install(name);
      if (!installed.ok) throw new Error(`installing ${name}: ${installed.code}: ${installed.message}`);
    }
    const opened = await openCatalog({ root, onlyPacks: () => activePackNames(root), compiler: createNpmCompiler({ root }) });
    if (!opened.ok) throw new Error(opened.message);
    const catalog = opened.value;
    const skipped = catalog.summaries().filter((m) => m.status !== 'ready');
    if (skipped.length > 0) throw new Error(`library bench: modules not ready: ${JSON.stringify(skipped)}`);
    return {
      root,
      async kernelRequests() {
        return LIBRARY_RUNS.map((run) => {
          const resolution = catalog.resolveForExecution(run.packages);
          if (!resolution.ok) throw new Error(`library bench: ${run.label}: ${resolution.message}`);
          return toKernelRequest({ code: run.code, resolution, timeoutMs: 30_000 });
        });
      },
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}
