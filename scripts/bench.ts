// `npm run bench [section…]`: runs every bench section (or the named ones) and prints figures.
import { SECTIONS } from './bench/index.ts';

const wanted = process.argv.slice(2);
const chosen = wanted.length ? SECTIONS.filter((s) => wanted.includes(s.name)) : SECTIONS;
console.log(`# sandbox-packs bench — node ${process.version}, ${new Date().toISOString()}`);
for (const section of chosen) {
  await section.run();
}
