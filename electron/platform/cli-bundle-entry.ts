// The CLI's entry in the staged bundle (cli.mjs). A dev checkout starts the same main() through
// scripts/sandbox-packs.mjs, which registers tsx first; the bundle is plain JS and needs no loader.
import { runAsProcess } from '../cli/main.ts';

await runAsProcess(process.argv.slice(2));
