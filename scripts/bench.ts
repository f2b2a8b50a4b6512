// `npm run bench [section…]`: runs every bench section but the opt-in ones (or the named ones) and prints figures.
import { SECTIONS } from './bench/index.ts';

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !SECTIONS.some((s) => s.name === name));
if (unknown.length) {
  console.error(`unknown bench section ${unknown.join(', ')}; sections: ${SECTIONS.map((s) => s.name + (s.optIn ? ' (opt-in)' : '')).join(', ')}`);
  process.exit(2);
}
const chosen = wanted.length ? SECTIONS.filter((s) => wanted.includes(s.name)) : SECTIONS.filter((s) => !s.optIn);
console.log(`# sandbox-packs bench — node ${process.version}, ${new Date().toISOString()}`);
for (const section of chosen) {
  await section.run();
}
