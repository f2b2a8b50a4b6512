// How to run this CLI again, as a command line a user can paste: the Node that runs it and the
// script it was started from (scripts/sandbox-packs.mjs in a checkout, the staged cli.mjs of the
// app). Printed next steps use it instead of `npx sandbox-packs`, which would ask the public
// registry for a package of that name — a name that is not ours there.

import path from 'node:path';

/** A word for a POSIX shell: as is when it is plain, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const ENTRY = /(?:^|[/\\])(?:sandbox-packs\.mjs|cli\.mjs|sandbox-packs)$/;

/** `node /path/to/sandbox-packs.mjs`, runnable as printed; `sandbox-packs` when main() runs inside another program. */
export function cliCommandLine(): string {
  const started = process.argv[1];
  if (started === undefined || !ENTRY.test(started)) return 'sandbox-packs';
  const node = path.basename(process.execPath) === 'node' ? 'node' : shellWord(process.execPath);
  return `${node} ${shellWord(path.resolve(started))}`;
}
