// What Electron runs (`electron electron/main/entry.mjs`): registers tsx so the main process runs
// the same TypeScript as the CLI and the web host (including the worker pools' .ts entries), then
// loads main.ts. A packaged app would bundle main instead; the dev checkout needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
