// The sections `npm run bench` runs, in order. Each lives in its own file.
import type { BenchSection } from './harness.ts';
import { wasmSection } from './wasm.ts';

export const SECTIONS: readonly BenchSection[] = [
  wasmSection,
];
