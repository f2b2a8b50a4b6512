#!/usr/bin/env node
// The `sandbox-packs` command. In a development checkout the CLI's TypeScript runs through tsx,
// so `npx sandbox-packs …` works straight after `npm install`; the packaged app ships a bundle.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../electron/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
