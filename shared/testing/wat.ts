// Test support: WebAssembly text (WAT) to a binary, with binaryen's text parser (the compiler
// AssemblyScript itself uses, pinned in package.json). For hand-written modules, the hostile
// ones above all: what they do is plain to read, which a builder's opcode lists are not.

import binaryen from 'binaryen';

/** Assemble `text`; throws with binaryen's message when the text does not parse or validate. */
export function wat(text: string): Uint8Array {
  const module = binaryen.parseText(text);
  try {
    // MVP plus what ordinary toolchains emit (bulk memory, sign extension, mutable globals).
    // binaryen splits bulk memory in two and asserts (aborting the process) when a module uses
    // memory.fill/copy with BulkMemory but not BulkMemoryOpt set, so both go together.
    const { MVP, BulkMemory, BulkMemoryOpt, SignExt, MutableGlobals } = binaryen.Features;
    module.setFeatures(MVP | BulkMemory | BulkMemoryOpt | SignExt | MutableGlobals);
    if (!module.validate()) throw new Error('wat: the module does not validate');
    return module.emitBinary();
  } finally {
    module.dispose();
  }
}
