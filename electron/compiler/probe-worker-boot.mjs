// Worker entry for the admission probe. Node 20 does not carry `--import tsx` into worker
// threads, so the worker registers tsx itself and then loads the TypeScript worker. A bundled
// build points the Worker at the compiled probe-worker instead and drops this file.
import { register } from 'tsx/esm/api';

register();
await import('./probe-worker.ts');
