// The files `sandbox-packs create` writes, as functions of the pack's name. They are a working
// pack, not placeholders: `check` passes on them as written (a test holds that), so an author
// starts from green and every later red is their own edit. One SKILL.md example per export, each
// with a `// →` value, so the examples are tests from the first commit.

/**
 * The AssemblyScript flags of the WASM contract (as scripts/build-wasm.mjs uses them): no runtime,
 * no abort import, no debug info, and a bounded memory, exported because the bytes and string
 * exports pass their data through it (the canonical ABI, docs/wasm-host.md).
 */
export const ASC_FLAGS = ['-O3', '--noAssert', '--runtime', 'stub', '--use', 'abort=', '--initialMemory', '1', '--maximumMemory', '16'] as const;

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
      memoryPagesMax: 16,
      exports: [
        'add',
        'lerp',
        { wasm: 'shout', as: 'shout', params: ['string'], result: 'string' },
        { wasm: 'byteSum', as: 'byteSum', params: ['bytes'], result: 'i32' },
      ],
      description: 'Math, text and bytes compiled to WebAssembly (AssemblyScript)',
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
## \`${name}/${WASM_MODULE.name}\` (WASM)

Runs on the host, outside the sandbox, on a fresh instance per call. Every export is **async**. It
takes and returns numbers, strings (UTF-8) or \`Uint8Array\`s, as package.json declares each one.

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

\`shout(text)\` — \`text\` in ASCII upper case, with an exclamation mark (a string in, a string out).

\`\`\`js
import { shout } from "${name}/${WASM_MODULE.name}";
return await shout("hello"); // → "HELLO!"
\`\`\`

\`byteSum(bytes)\` — the sum of a \`Uint8Array\`'s bytes (bytes in, a number out).

\`\`\`js
import { byteSum } from "${name}/${WASM_MODULE.name}";
return await byteSum(new Uint8Array([1, 2, 250])); // → 253
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
// The WASM contract (docs/wasm-host.md): nothing is imported, no state survives between calls
// (each call gets a fresh instance), and every export is listed in package.json's "exports" for
// this module. Scalar exports take and return i32, f32 or f64. Exports declared with "params" and
// "result" may also take and return bytes and strings, through the component model's canonical
// ABI: each one arrives as a (pointer, length) pair the host wrote through cabi_realloc, and one
// is returned as the address of two u32s (pointer, length) in memory, the "return area".

export function add(a: f64, b: f64): f64 {
  return a + b;
}

export function lerp(a: f64, b: f64, t: f64): f64 {
  return a + (b - a) * t;
}

// A bump allocator: the instance is dropped after its call, so nothing is ever freed.
let top: usize = 0;

/** What the host calls to place each bytes/string argument (and what exports may use too). */
export function cabi_realloc(oldPtr: usize, oldSize: usize, align: usize, newSize: usize): usize {
  if (top == 0) top = __heap_base;
  const ptr = (top + align - 1) & ~(align - 1);
  const end = ptr + newSize;
  const have = (<usize>memory.size()) << 16;
  if (end > have && memory.grow(<i32>((end - have + 0xffff) >>> 16)) < 0) unreachable();
  if (oldPtr != 0) memory.copy(ptr, oldPtr, min(oldSize, newSize));
  top = end;
  return ptr;
}

/** The return area of a bytes/string result: (pointer, length). */
const RET: usize = memory.data(8, 4);

/** shout(string) -> string: the text in ASCII upper case, then "!". */
export function shout(ptr: usize, len: usize): usize {
  const out = cabi_realloc(0, 0, 1, len + 1);
  for (let i: usize = 0; i < len; i++) {
    let c = load<u8>(ptr + i);
    if (c >= 0x61 && c <= 0x7a) c -= 0x20;
    store<u8>(out + i, c);
  }
  store<u8>(out + len, 0x21);
  store<u32>(RET, <u32>out, 0);
  store<u32>(RET, <u32>(len + 1), 4);
  return RET;
}

/** byteSum(bytes) -> i32: the sum of the bytes. */
export function byteSum(ptr: usize, len: usize): i32 {
  let sum: i32 = 0;
  for (let i: usize = 0; i < len; i++) sum += load<u8>(ptr + i);
  return sum;
}
`;

export const WASM_BUILD_SCRIPT = `// Builds ${WASM_MODULE.file} from ${WASM_MODULE.source} with AssemblyScript (a devDependency):
// \`npm install\`, then \`npm run build\`. The flags are the sandbox's WASM contract made concrete:
// no runtime, no abort import (a failed check traps), a bounded memory, no debug info.
import asc from 'assemblyscript/asc';

const { error, stderr } = await asc.main(['${WASM_MODULE.source}', ${ASC_FLAGS.map((f) => `'${f}'`).join(', ')}, '--outFile', '${WASM_MODULE.file}']);
if (error) {
  console.error(stderr.toString());
  process.exit(1);
}
console.log('wrote ${WASM_MODULE.file}');
`;

export const GITIGNORE = 'node_modules/\n*.tgz\n';
