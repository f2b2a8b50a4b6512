// Turns the guest source (shared/sandbox/guest/*.js and the web parts' pieces in guest/web/:
// readable, linted, commented) into the text the engine compiles, as string constants in
// shared/sandbox/guest/guest-sources.generated.ts. Why a build step: shared/ runs under tsx, Vite
// and esbuild and may not read files, so the text must be a module; and the library and the web
// parts are compiled in the runs that use them, where compile time grows with the text, so what the
// engine gets has no comment lines, blank lines or indentation. The invariants: each generated text
// parses to the same syntax tree as the source it came from (checked with acorn), and a web piece
// takes only what its part's scope or an earlier piece of the same part gives. `--check` rebuilds
// in memory and fails when the committed file differs (scripts/build-guest.test.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parse } from 'acorn';
import prettier from 'prettier';

const root = new URL('..', import.meta.url);
const GUEST = 'shared/sandbox/guest';
const OUT = `${GUEST}/guest-sources.generated.ts`;

/** The core's `#if wasm` … `#else` … `#endif` section: the WASM core keeps the first branch, the plain core the (commented-out) second. */
function variants(source) {
  const lines = source.split('\n');
  const at = (marker) => {
    const found = lines.flatMap((line, i) => (line.trim() === `// ${marker}` ? [i] : []));
    if (found.length !== 1) throw new Error(`${GUEST}/prelude-core.js: expected one "// ${marker}" line, found ${found.length}`);
    return found[0];
  };
  const start = at('#if wasm');
  const otherwise = at('#else');
  const end = at('#endif');
  if (!(start < otherwise && otherwise < end)) throw new Error(`${GUEST}/prelude-core.js: #if wasm, #else and #endif are out of order`);
  const plainBranch = lines.slice(otherwise + 1, end).map((line) => {
    const match = /^(\s*)\/\/ (.*)$/.exec(line);
    if (match === null) throw new Error(`${GUEST}/prelude-core.js: the #else branch must be commented-out code, found: ${line}`);
    return match[1] + match[2];
  });
  return {
    wasm: [...lines.slice(0, start), ...lines.slice(start + 1, otherwise), ...lines.slice(end + 1)].join('\n'),
    plain: [...lines.slice(0, start), ...plainBranch, ...lines.slice(end + 1)].join('\n'),
  };
}

/** Line by line: leading whitespace, blank lines and whole-line comments go; every line break between code stays. */
const compact = (source) =>
  source
    .split('\n')
    .map((line) => line.trimStart())
    .filter((line) => line !== '' && !line.startsWith('//'))
    .join('\n');

/** The syntax tree without positions and raw spellings: what the engine will compile, as a value. */
function tree(source, name) {
  try {
    return JSON.stringify(parse(source, { ecmaVersion: 'latest', sourceType: 'script' }), (key, value) =>
      key === 'start' || key === 'end' || key === 'raw' ? undefined : value,
    );
  } catch (error) {
    throw new Error(`${name}: ${error.message}`);
  }
}

/** The text the engine compiles from `source`; throws when stripping would change its syntax tree. */
export function compiled(source, name) {
  const original = tree(source, name);
  const text = compact(source);
  if (tree(text, `${name} (compacted)`) !== original) throw new Error(`${name}: compacting changed the code; move a comment or a multi-line literal`);
  return text;
}

/**
 * The web parts (guest-web.ts): the pieces under guest/web/ each part is built from, in order, and
 * the name the generated module exports its text as. A part is one function of the part's scope
 * (PART_SCOPE), its pieces concatenated as its body; the last piece returns the part's exports.
 */
export const WEB_PARTS = {
  text: { name: 'WEB_TEXT_PART', pieces: ['common.js', 'text.js'] },
  base64: { name: 'WEB_BASE64_PART', pieces: ['common.js', 'base64.js'] },
  url: { name: 'WEB_URL_PART', pieces: ['common.js', 'url-helpers.js', 'url-host.js', 'url-parser.js', 'url-api.js'] },
  idna: { name: 'WEB_IDNA_PART', pieces: ['common.js', 'url-helpers.js', 'idna.js'] },
  clone: { name: 'WEB_CLONE_PART', pieces: ['common.js', 'clone.js'] },
  crypto: { name: 'WEB_CRYPTO_PART', pieces: ['common.js', 'crypto.js'] },
};
/** What the host passes a part: the core's WEB (the parts' W) and its loader of other parts. */
const PART_SCOPE = ['W', 'need'];

/** The names a piece's `global` or `exported` block comments list (the names ESLint reads too). */
function listed(comments, kind) {
  return comments
    .filter((comment) => comment.type === 'Block' && comment.value.trimStart().startsWith(`${kind} `))
    .flatMap((comment) =>
      comment.value
        .trimStart()
        .slice(kind.length)
        .split(/[\s,]+/)
        .filter((name) => name !== ''),
    );
}

/**
 * One web part's source, its pieces in order (`read(file)` gives a piece's text). Each piece opens
 * with the 'use strict' directive (it is linted alone); the part states it once, so the build drops
 * each piece's, and its global/exported comments. Throws when a piece takes a name that neither the part's scope nor an earlier piece
 * of this part gives, since lint sees one file at a time and the engine would only fail at run time.
 */
export function webPart(part, pieces, read) {
  const given = new Set(PART_SCOPE);
  const bodies = pieces.map((file) => {
    const source = read(file);
    const comments = [];
    let program;
    try {
      program = parse(source, { ecmaVersion: 'latest', sourceType: 'script', allowReturnOutsideFunction: true, onComment: comments });
    } catch (error) {
      throw new Error(`web/${file}: ${error.message}`);
    }
    const first = program.body[0];
    if (first === undefined || first.directive !== 'use strict') throw new Error(`web/${file}: a piece opens with the 'use strict' directive`);
    for (const name of listed(comments, 'global')) {
      if (!given.has(name))
        throw new Error(
          `${part} part: web/${file} takes ${name}, which neither the part's scope nor an earlier piece (${pieces.slice(0, pieces.indexOf(file)).join(', ') || 'none'}) exports`,
        );
    }
    for (const name of listed(comments, 'exported')) given.add(name);
    // The directive and the global/exported lists are for lint and this check: the engine gets neither.
    const dropped = [first, ...comments.filter((comment) => comment.type === 'Block' && /^\s*(global|exported)\s/.test(comment.value))];
    let body = source;
    for (const { start, end } of dropped.sort((a, b) => b.start - a.start)) body = body.slice(0, start) + body.slice(end);
    return body;
  });
  return `(function (${PART_SCOPE.join(', ')}) {\n'use strict';\n${bodies.join('\n')}\n})`;
}

/** The generated module's text, formatted as the repository formats TypeScript. */
export async function build() {
  const read = (file) => readFileSync(new URL(`${GUEST}/${file}`, root), 'utf8');
  const core = variants(read('prelude-core.js'));
  const texts = {
    PRELUDE_CORE_WASM: compiled(core.wasm, 'prelude-core.js (with WASM)'),
    PRELUDE_CORE_PLAIN: compiled(core.plain, 'prelude-core.js (without WASM)'),
    BRIDGE_LIBRARY: compiled(read('library.js'), 'library.js'),
  };
  const web = Object.entries(WEB_PARTS).map(([part, { name, pieces }]) => ({
    name,
    pieces,
    text: compiled(
      webPart(part, pieces, (file) => read(`web/${file}`)),
      `the ${part} web part`,
    ),
  }));
  const body = [
    '// Generated by scripts/build-guest.mjs from shared/sandbox/guest/*.js and guest/web/*.js: edit',
    '// those and run `node scripts/build-guest.mjs`. The guest text as the engine compiles it (comments',
    '// and indentation stripped; same syntax tree as the source). guest-prelude.ts fills the',
    '// placeholders of the core and the library; guest-web.ts hands out the web parts as they are.',
    '',
    '/** guest/prelude-core.js for runs with WASM modules. */',
    `export const PRELUDE_CORE_WASM = ${JSON.stringify(texts.PRELUDE_CORE_WASM)};`,
    '',
    '/** guest/prelude-core.js without its `#if wasm` section. */',
    `export const PRELUDE_CORE_PLAIN = ${JSON.stringify(texts.PRELUDE_CORE_PLAIN)};`,
    '',
    '/** guest/library.js. */',
    `export const BRIDGE_LIBRARY = ${JSON.stringify(texts.BRIDGE_LIBRARY)};`,
    ...web.flatMap(({ name, pieces, text }) => [
      '',
      `/** The part (W, need) from guest/web/: ${pieces.join(', ')}. */`,
      `export const ${name} = ${JSON.stringify(text)};`,
    ]),
    '',
  ].join('\n');
  const options = await prettier.resolveConfig(new URL(OUT, root));
  return prettier.format(body, { ...options, parser: 'typescript' });
}

async function main() {
  const generated = await build();
  const target = new URL(OUT, root);
  if (process.argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(target, 'utf8');
    } catch {
      // missing: reported below as out of date
    }
    if (committed !== generated) {
      console.error(`${OUT} is out of date: run node scripts/build-guest.mjs`);
      process.exit(1);
    }
    console.log(`ok    ${OUT}`);
  } else {
    writeFileSync(target, generated);
    console.log(`wrote ${OUT}`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
