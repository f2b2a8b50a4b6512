// Proves the lint rules that hold the process boundary really fire: a file in shared/ that
// imports Node or React, and a renderer file that imports Node-side code, are errors.
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
      expect(messages.some((m) => m.startsWith('no-restricted-imports')), mod).toBe(true);
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
  it('allows shared/ to import zod and its own files', async () => {
    const messages = await ruleIds('shared/packs/probe.ts', "import { z } from 'zod';\nimport { LIMITS } from '../protocol/limits.ts';\nexport const y = [z, LIMITS];\n");
    expect(messages).toEqual([]);
  });
});
