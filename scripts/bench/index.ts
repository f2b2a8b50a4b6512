// The sections `npm run bench` runs, in order (an opt-in one only when named). Each lives in its own file.
import type { BenchSection } from './harness.ts';
import { wasmSection } from './wasm.ts';
import { lanesSection } from './lanes.ts';
import { installSection } from './install.ts';
import { compilerSection } from './compiler.ts';
import { discoverySection } from './discovery.ts';
import { firstRunSection } from './first-run.ts';
import { kernelBench } from './kernel.ts';
import { webHostSection } from './web-host.ts';
import { mcpSection } from './mcp.ts';
import { browserSection } from './browser.ts';
import { loadSection } from './load.ts';
import { corpusSection } from './corpus.ts';

export const SECTIONS: readonly BenchSection[] = [
  wasmSection,
  lanesSection,
  installSection,
  compilerSection,
  kernelBench,
  discoverySection,
  firstRunSection,
  webHostSection,
  mcpSection,
  browserSection,
  loadSection,
  corpusSection,
];
