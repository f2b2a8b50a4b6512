// Proves the lint rules that hold the process boundary really fire: a file in shared/ that
// imports Node or React, a renderer file that imports Node-side code, an arrow back up between
// the layers of shared/ or from the browser runner to a feature, Electron outside main/ and
// preload/, and production code importing test support, are errors; what is allowed stays clean.
import { ESLint } from 'eslint';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const eslint = new ESLint({ cwd: root });

async function ruleIds(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('process boundary lint', () => {
  it('refuses node:* in shared/', async () => {
    const messages = await ruleIds('shared/packs/probe.ts', "import fs from 'node:fs';\nexport const x = fs;\n");
    expect(messages.join('\n')).toContain('no-restricted-imports: ');
    expect(messages.join('\n')).toContain('shared/ is environment-neutral');
  });
  it('refuses bare Node builtins, electron and react in shared/', async () => {
    for (const mod of ['fs', 'path', 'electron', 'react']) {
      const messages = await ruleIds('shared/sandbox/probe.ts', `import x from '${mod}';\nexport const y = x;\n`);
      expect(
        messages.some((m) => m.startsWith('no-restricted-imports')),
        mod,
      ).toBe(true);
    }
  });
  it('refuses Node-side imports in renderer/', async () => {
    const a = await ruleIds('renderer/features/probe.tsx', "import { x } from '../../electron/catalog/catalog.ts';\nexport const y = x;\n");
    expect(a.some((m) => m.includes('renderer/ may not import Node-side code'))).toBe(true);
    const b = await ruleIds('renderer/features/probe.tsx', "import cp from 'node:child_process';\nexport const y = cp;\n");
    expect(b.some((m) => m.includes('renderer/ runs in a page'))).toBe(true);
  });
  it('refuses React in electron/', async () => {
    const messages = await ruleIds('electron/catalog/probe.ts', "import React from 'react';\nexport const y = React;\n");
    expect(messages.some((m) => m.includes('React belongs in renderer/'))).toBe(true);
  });
  it('holds the layers inside shared/: protocol imports nothing else, packs and contract import protocol only, sandbox adds packs', async () => {
    const refused: Array<[string, string, string]> = [
      ['shared/protocol/probe.ts', '../packs/digest.ts', 'shared/protocol/ is the base layer'],
      ['shared/protocol/probe.ts', '../sandbox/kernel.ts', 'shared/protocol/ is the base layer'],
      ['shared/packs/probe.ts', '../sandbox/kernel.ts', 'shared/packs/ imports shared/protocol/ only.'],
      ['shared/packs/probe.ts', '../contract/methods.ts', 'shared/packs/ imports shared/protocol/ only.'],
      ['shared/contract/probe.ts', '../packs/digest.ts', 'shared/contract/ imports shared/protocol/ only.'],
      ['shared/contract/probe.ts', '../sandbox/sub/x.ts', 'shared/contract/ imports shared/protocol/ only.'],
      ['shared/sandbox/probe.ts', '../contract/methods.ts', 'shared/sandbox/ builds on shared/protocol/ and shared/packs/ only.'],
      // A layer's files in its subfolders are held as well.
      ['shared/sandbox/kernel/probe.ts', '../../contract/methods.ts', 'shared/sandbox/ builds on shared/protocol/ and shared/packs/ only.'],
      ['shared/sandbox/kernel/probe.ts', '../../workflow/validate-workflow.ts', 'shared/sandbox/ builds on shared/protocol/ and shared/packs/ only.'],
      ['shared/workflow/probe.ts', '../contract/methods.ts', 'shared/workflow/ (offline validation'],
      ['shared/protocol/probe.ts', '../workflow/codeact.ts', 'shared/protocol/ is the base layer'],
    ];
    for (const [file, spec, message] of refused) {
      const messages = await ruleIds(file, `import { x } from '${spec}';\nexport const y = x;\n`);
      expect(
        messages.some((m) => m.startsWith('no-restricted-imports: ') && m.includes(message)),
        `${file} → ${spec}: ${messages.join('; ')}`,
      ).toBe(true);
    }
    // The ring rules still hold in a layer's files (the layer rule restates them).
    expect((await ruleIds('shared/sandbox/probe.ts', "import fs from 'node:fs';\nexport const y = fs;\n")).join('\n')).toContain(
      'shared/ is environment-neutral',
    );
    expect(
      await ruleIds(
        'shared/sandbox/probe.ts',
        "import { a } from '../packs/wasm-facade.ts';\nimport { b } from '../protocol/limits.ts';\nexport const y = [a, b];\n",
      ),
    ).toEqual([]);
    // Tests may combine layers.
    expect(await ruleIds('shared/protocol/probe.test.ts', "import { a } from '../sandbox/kernel.ts';\nexport const y = a;\n")).toEqual([]);
  });
  it('refuses an import from the browser runner back up into a feature', async () => {
    const messages = await ruleIds(
      'renderer/runner/probe.ts',
      "import { RunOutput } from '../features/code-node/run-panel.tsx';\nexport const y = RunOutput;\n",
    );
    expect(messages.some((m) => m.includes('renderer/runner/ may not import a feature'))).toBe(true);
    expect(
      await ruleIds('renderer/features/code-node/probe.tsx', "import { windowRunner } from '../../runner/window-runner.ts';\nexport const y = windowRunner;\n"),
    ).toEqual([]);
  });
  it('refuses Electron outside electron/main/ and electron/preload/', async () => {
    for (const file of ['electron/services/probe.ts', 'electron/server/probe.ts', 'scripts/probe.ts', 'e2e/probe.ts']) {
      for (const mod of ['electron', 'electron/main']) {
        const messages = await ruleIds(file, `import { app } from '${mod}';\nexport const y = app;\n`);
        expect(
          messages.some((m) => m.includes('Only electron/main/ and electron/preload/ import Electron')),
          `${file} ← ${mod}`,
        ).toBe(true);
      }
    }
    for (const file of ['electron/main/probe.ts', 'electron/preload/probe.ts']) {
      expect(await ruleIds(file, "import { app } from 'electron';\nexport const y = app;\n")).toEqual([]);
    }
    // A path through the electron/ folder is not the electron module.
    expect(await ruleIds('scripts/probe.ts', "import { x } from '../electron/install/index.ts';\nexport const y = x;\n")).toEqual([]);
  });
  it('refuses test support (testing/) in production code, and allows it in tests, testing/ and the parity page', async () => {
    const refused: Array<[string, string]> = [
      ['electron/services/probe.ts', '../testing/verdaccio.ts'],
      ['electron/runtime/wasm/probe.ts', '../../testing/wasm-pool.ts'],
      ['shared/sandbox/probe.ts', '../testing/kernel-fixture.ts'],
      ['shared/packs/probe.ts', '../testing/wasm-builder.ts'],
      ['renderer/features/probe.tsx', '../../shared/testing/kernel-fixture.ts'],
      ['renderer/runner/probe.ts', '../../shared/testing/kernel-fixture.ts'],
    ];
    for (const [file, spec] of refused) {
      const messages = await ruleIds(file, `import { x } from '${spec}';\nexport const y = x;\n`);
      expect(messages, `${file} → ${spec}`).toContain(
        `@typescript-eslint/no-restricted-imports: '${spec}' import is restricted from being used by a pattern. Production code never imports test support (a testing/ folder).`,
      );
    }
    const allowed: Array<[string, string]> = [
      ['electron/services/probe.test.ts', '../testing/verdaccio.ts'],
      ['electron/testing/probe.ts', './verdaccio.ts'],
      ['shared/testing/probe.ts', '../packs/wasm-binary.ts'],
      ['renderer/runner/parity/probe.ts', '../../../shared/testing/kernel-fixture.ts'],
    ];
    for (const [file, spec] of allowed) expect(await ruleIds(file, `import { x } from '${spec}';\nexport const y = x;\n`), file).toEqual([]);
  });
  it('allows shared/ to import zod and its own files', async () => {
    const messages = await ruleIds(
      'shared/packs/probe.ts',
      "import { z } from 'zod';\nimport { LIMITS } from '../protocol/limits.ts';\nexport const y = [z, LIMITS];\n",
    );
    expect(messages).toEqual([]);
  });
});
