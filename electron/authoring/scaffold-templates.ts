// The files `sandbox-packs create` writes, as functions of the pack's name. They are a working
// pack, not placeholders: `check` passes on them as written (a test holds that), so an author
// starts from green and every later red is their own edit. One SKILL.md example per export, each
// with a `// →` value, so the examples are tests from the first commit.

/** The AssemblyScript flags of the v1 scalar contract (the same as scripts/build-wasm.mjs). */
export const ASC_FLAGS = ['-O3', '--noAssert', '--runtime', 'stub', '--use', 'abort=', '--noExportMemory'] as const;

export const WASM_MODULE = { name: 'math-wasm', file: 'wasm/math.wasm', source: 'wasm-src/math.ts' } as const;

export interface TemplateInput {
  readonly name: string;
  readonly wasm: boolean;
}

/** The SKILL.md `name`: the package name without its scope, in SKILL.md's character set. */
export function skillName(packageName: string): string {
  const bare = packageName
    .replace(/^@[^/]+\//, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '');
  return (bare || 'pack').slice(0, 64);
}

export function packageJson({ name, wasm }: TemplateInput): string {
  const modules: object[] = [{ name: '.', kind: 'js', file: 'sandbox/index.js', description: 'Greetings and sums (replace with what your pack does)' }];
  if (wasm) {
    modules.push({
      name: WASM_MODULE.name,
      kind: 'wasm',
      file: WASM_MODULE.file,
      memoryPagesMax: 0,
      exports: ['add', 'lerp'],
      description: 'Scalar math compiled to WebAssembly (AssemblyScript)',
    });
  }
  const pkg = {
    name,
    version: '0.1.0',
    description: 'A Sandbox Pack: modules for sandboxed Code nodes.',
    license: 'MIT',
    type: 'module',
    keywords: ['sandbox-pack'],
    files: ['sandbox', ...(wasm ? ['wasm'] : []), 'SKILL.md'],
    ...(wasm ? { scripts: { build: 'node scripts/build-wasm.mjs' }, devDependencies: { assemblyscript: '^0.28.20' } } : {}),
    nodetool: { apiVersion: 1, sandboxModules: modules },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

export const INDEX_JS = `// The pack's root module: what \`import { … } from "<this pack>"\` gives a Code node.
// It runs inside the sandbox (QuickJS): plain ES modules, no Node APIs, no timers, no require,
// no import(); it may import its own files (list helpers under "internal" in package.json).

export function greet(name) {
  return \`Hello, \${name}!\`;
}

export function sum(numbers) {
  return numbers.reduce((total, n) => total + n, 0);
}
`;

export function skillMd({ name, wasm }: TemplateInput): string {
  const wasmSection = wasm
    ? `
## \`${name}/${WASM_MODULE.name}\` (WASM, scalar)

Runs on the host, outside the sandbox, on a fresh instance per call. Every export is **async** and
takes and returns numbers only.

\`add(a, b)\` — the sum of two numbers.

\`\`\`js
import { add } from "${name}/${WASM_MODULE.name}";
return await add(2, 3); // → 5
\`\`\`

\`lerp(a, b, t)\` — the value a fraction \`t\` of the way from \`a\` to \`b\`.

\`\`\`js
import { lerp } from "${name}/${WASM_MODULE.name}";
return await lerp(10, 20, 0.25); // → 12.5
\`\`\`
`
    : '';
  return `---
name: ${skillName(name)}
description: Greets people and sums numbers inside the sandbox (replace this with one line on what the pack is for).
---

# ${name}

Declare \`${name}\` in the Code node's packages, then import what you need.

## \`${name}\` (JS)

\`greet(name)\` — a greeting for \`name\`.

\`\`\`js
import { greet } from "${name}";
greet("Ada"); // → "Hello, Ada!"
\`\`\`

\`sum(numbers)\` — the sum of an array of numbers (\`0\` for an empty array).

\`\`\`js
import { sum } from "${name}";
sum([1, 2, 3.5]); // → 6.5
\`\`\`
${wasmSection}
## Sandbox gotchas

- No timers, no file system, no Node APIs; the guest heap is 64 MB and a run has a deadline.
`;
}

export const WASM_SOURCE = `// AssemblyScript, compiled to ${WASM_MODULE.file} by \`npm run build\` (scripts/build-wasm.mjs).
// The v1 WASM contract: exported functions take and return i32, f32 or f64 only (at most 8
// parameters, one result), nothing is imported, and no state survives between calls. Every export
// must also be listed in package.json's "exports" for this module.

export function add(a: f64, b: f64): f64 {
  return a + b;
}

export function lerp(a: f64, b: f64, t: f64): f64 {
  return a + (b - a) * t;
}
`;

export const WASM_BUILD_SCRIPT = `// Builds ${WASM_MODULE.file} from ${WASM_MODULE.source} with AssemblyScript (a devDependency):
// \`npm install\`, then \`npm run build\`. The flags are the sandbox's WASM contract made concrete:
// no runtime, no abort import (a failed check traps), no exported memory, no debug info.
import asc from 'assemblyscript/asc';

const { error, stderr } = await asc.main(['${WASM_MODULE.source}', ${ASC_FLAGS.map((f) => `'${f}'`).join(', ')}, '--outFile', '${WASM_MODULE.file}']);
if (error) {
  console.error(stderr.toString());
  process.exit(1);
}
console.log('wrote ${WASM_MODULE.file}');
`;

export const GITIGNORE = 'node_modules/\n*.tgz\n';
