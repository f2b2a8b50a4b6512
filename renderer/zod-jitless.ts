// Imported first by every browser entry (the page, the kernel worker, the parity page; the WASM worker uses no zod):
// their CSP has no 'unsafe-eval', so zod is told not to generate code before any schema is built.
// Otherwise zod's own probe (util.allowsEval, run when the first object schema is made) tries
// `new Function` once per realm, and the refusal is a CSP violation report; with jitless set,
// schemas parse as they are (shared/protocol/compiled.ts then never asks to compile).

import { z } from 'zod';

z.config({ jitless: true });
