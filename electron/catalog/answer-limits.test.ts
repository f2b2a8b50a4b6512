// Issue 26 item 3: one pack must never break the catalog for every face. A pack is built at each
// bound the contract's answer schemas hold (at the limit, and at the limit + 1) in one install
// root beside a good pack; discovery must keep each at-limit pack as it is and turn each one past
// the limit into a skipped module (or a rejected pack, or a shortened text) with a reason that
// names the limit — and catalog.summaries, catalog.diagnostics, catalog.skillDoc, the MCP
// list_sandbox_modules tool, the web host's rpc route and `discover` must all still answer.
// Real discovery, the real npm compiler and probe, the real dispatcher, MCP SDK client, HTTP, CLI.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModuleSummary, PackStatusRow } from '../../shared/contract/schemas.ts';
import { LIMITS } from '../../shared/protocol/limits.ts';
import { printable } from '../../shared/packs/pack-path.ts';
import { main } from '../cli/main.ts';
import { createMcpFace } from '../mcp/mcp-server.ts';
import { startWebHost, type WebHost } from '../server/web-host.ts';
import { createAppServices, type AppServices } from '../services/app-services.ts';
import { createFixtureRoot, type FixtureRoot } from '../testing/fixture-root.ts';
import {
  authoredPack,
  exportingSource,
  exportNames,
  identifierOfLength,
  npmSelfPack,
  pathOfLength,
  wasmPack,
  writeLimitPack,
  type LimitPack,
} from '../testing/limit-packs.ts';
import { raw, staticBuild, type TempDir } from '../testing/test-support.ts';

/** What a face should show of one pack: its status (and reason), each module as "ready" or "code: reason", and a check of the rest. */
interface Outcome {
  readonly status: 'ok' | 'rejected';
  readonly code?: string;
  readonly reason?: string;
  readonly modules?: Readonly<Record<string, string>>;
  readonly check?: (row: PackStatusRow) => void;
}

interface LimitCase {
  /** The bound, as the contract states it. */
  readonly limit: string;
  readonly at: LimitPack;
  readonly over: LimitPack;
  readonly atOutcome: Outcome;
  readonly overOutcome: Outcome;
}

// --- exact texts of the rules the table reaches --------------------------------------------------

/** The analyzer's reason for an import of a pack file that is not in the "internal" list. */
const unlistedImport = (file: string, target: string): string =>
  `${file}:1:15: import "${printable(`./${target}`)}" resolves to "${target}", which is not in the pack's "internal" list; list it there, or import a public entry by its specifier.`;

/** The length of `text(n)` is n + a constant once n is past printable's cut; solve for the n that makes it `length`. */
function solve(length: number, text: (n: number) => string): number {
  const probe = 400;
  return probe + (length - text(probe).length);
}

const shortened = (text: string, max: number): string => `${text.slice(0, max - 3)}...`;

const cycleReason = (pack: string, a: string, b: string): string =>
  `These modules import each other in a cycle that includes internal helpers: ${pack} internal ${a}, ${pack} internal ${b}.`;

const entry = (source: string) => [{ name: '.', file: 'm.js', source }];

function modulesPack(name: string, count: number): LimitPack {
  return authoredPack(
    name,
    Array.from({ length: count }, (_, i) => ({ name: `m${i}`, file: `m${i}.js`, source: 'export const x = 1;\n' })),
  );
}

function internalPack(name: string, count: number): LimitPack {
  const internal = Object.fromEntries(Array.from({ length: count }, (_, i) => [`h${i}.js`, 'export const h = 1;\n']));
  return authoredPack(name, entry('export const ok = true;\n'), { internal });
}

/** `failing` unused internal helpers that do not parse, and no SKILL.md: failing + 1 warnings. */
function warningsPack(name: string, failing: number): LimitPack {
  const internal = Object.fromEntries(Array.from({ length: failing }, (_, i) => [`bad${i}.js`, 'export const = 1;\n']));
  return authoredPack(name, entry('export const ok = true;\n'), { internal, skill: false });
}

function longReasonPack(name: string, reasonLength: number): { pack: LimitPack; reason: string } {
  const n = solve(reasonLength, (k) => unlistedImport('m.js', pathOfLength(k, 'x.js')));
  const target = pathOfLength(n, 'x.js');
  return { pack: authoredPack(name, entry(`import x from "./${target}";\nexport default x;\n`)), reason: unlistedImport('m.js', target) };
}

function longWarningPack(name: string, messageLength: number): { pack: LimitPack; message: string } {
  const n = solve(messageLength, (k) => unlistedImport('h.js', pathOfLength(k, 'x.js')));
  const target = pathOfLength(n, 'x.js');
  const pack = authoredPack(name, entry('export const ok = true;\n'), { internal: { 'h.js': `import x from "./${target}";\nexport default x;\n` } });
  return { pack, message: unlistedImport('h.js', target) };
}

/** Two internal helpers in one long directory that import each other: the pack is rejected with a reason of `reasonLength`. */
function cyclePack(name: string, reasonLength: number): { pack: LimitPack; reason: string } {
  const rest = reasonLength - cycleReason(name, '/a.js', '/b.js').length;
  const dir = pathOfLength(Math.floor(rest / 2), '');
  const a = `${dir}/a.js`;
  const b = `${dir}/b${rest % 2 === 1 ? 'b' : ''}.js`;
  const pack = authoredPack(name, entry('export const ok = true;\n'), {
    internal: { [a]: `import "./${b.slice(dir.length + 1)}";\nexport const a = 1;\n`, [b]: 'import "./a.js";\nexport const b = 1;\n' },
  });
  return { pack, reason: cycleReason(name, a, b) };
}

/** A WASM module whose disclosure line is `length` characters: 8 exports of 40 characters and a description of the rest. */
function linePack(name: string, length: number): { pack: LimitPack; head: string; description: string } {
  const names = Array.from({ length: 8 }, (_, i) => `f${i}${'a'.repeat(38)}`);
  const head = `${name}/w (wasm; exports ${names.join(', ')})`;
  const description = 'd'.repeat(length - head.length - 2);
  const pack = wasmPack(
    name,
    names.map((n) => ({ name: n, params: ['i32'], results: ['i32'] })),
    description,
  );
  return { pack, head, description };
}

const wasmParams = (name: string, count: number) => wasmPack(name, [{ name: 'f', params: new Array<'i32'>(count).fill('i32'), results: ['i32'] }]);

const versionPack = (name: string, length: number) => authoredPack(name, entry('export const v = 1;\n'), { version: `1.0.0-${'a'.repeat(length - 6)}` });

const skillPack = (name: string, descriptionLength: number) =>
  authoredPack(name, entry('export const s = 1;\n'), { skill: `---\nname: ${name}\ndescription: ${'s'.repeat(descriptionLength)}\n---\n\nBody.\n` });

// --- the table --------------------------------------------------------------------------------------

const reasonAt = longReasonPack('reason-at', LIMITS.reasonChars);
const reasonOver = longReasonPack('reason-over', LIMITS.reasonChars + 1);
const warningAt = longWarningPack('warning-text-at', LIMITS.reasonChars);
const warningOver = longWarningPack('warning-text-over', LIMITS.reasonChars + 1);
const cycleAt = cyclePack('cycle-at', LIMITS.reasonChars);
const cycleOver = cyclePack('cycle-over', LIMITS.reasonChars + 1);
const lineAt = linePack('line-at', LIMITS.disclosureLineChars);
const lineOver = linePack('line-ov', LIMITS.disclosureLineChars + 1);
const longName = identifierOfLength(LIMITS.exportNameChars + 1);

const CASES: readonly LimitCase[] = [
  {
    limit: `exports per module (${LIMITS.exportsPerModule})`,
    at: authoredPack('exports-at', entry(exportingSource(exportNames(LIMITS.exportsPerModule)))),
    over: authoredPack('exports-over', entry(exportingSource(exportNames(LIMITS.exportsPerModule + 1)))),
    atOutcome: { status: 'ok', modules: { 'exports-at': 'ready' }, check: (row) => expect(row.modules[0]?.exports).toHaveLength(LIMITS.exportsPerModule) },
    overOutcome: {
      status: 'ok',
      modules: { 'exports-over': 'module-over-limit: exports-over: the module exports 2049 names; at most 2048 are allowed.' },
    },
  },
  {
    limit: `export name length (${LIMITS.exportNameChars})`,
    at: authoredPack('export-name-at', entry(exportingSource([identifierOfLength(LIMITS.exportNameChars)]))),
    over: authoredPack('export-name-over', entry(exportingSource([longName]))),
    atOutcome: { status: 'ok', modules: { 'export-name-at': 'ready' } },
    overOutcome: {
      status: 'ok',
      modules: {
        'export-name-over': `module-over-limit: export-name-over: the export name "${printable(longName, 64)}" is 129 characters long; at most 128 are allowed.`,
      },
    },
  },
  {
    limit: `exports per npm module (${LIMITS.exportsPerModule}), from the compiler's output`,
    at: npmSelfPack('npm-exports-at', exportingSource(exportNames(LIMITS.exportsPerModule))),
    over: npmSelfPack('npm-exports-over', exportingSource(exportNames(LIMITS.exportsPerModule + 1))),
    atOutcome: { status: 'ok', modules: { 'npm-exports-at': 'ready' } },
    overOutcome: {
      status: 'ok',
      modules: { 'npm-exports-over': 'module-over-limit: npm-exports-over: the module exports 2049 names; at most 2048 are allowed.' },
    },
  },
  {
    limit: `module name length (${LIMITS.moduleNameChars})`,
    at: authoredPack('module-name-at', [{ name: 'n'.repeat(LIMITS.moduleNameChars), file: 'm.js', source: 'export const x = 1;\n' }]),
    over: authoredPack('module-name-over', [{ name: 'n'.repeat(LIMITS.moduleNameChars + 1), file: 'm.js', source: 'export const x = 1;\n' }]),
    atOutcome: { status: 'ok', modules: { [`module-name-at/${'n'.repeat(64)}`]: 'ready' } },
    overOutcome: {
      status: 'ok',
      modules: {
        [`module-name-over/${'n'.repeat(64)}...`]: `module-name-invalid: Module name "${'n'.repeat(64)}..." is longer than 64 characters.`,
      },
    },
  },
  {
    limit: `modules per pack (${LIMITS.modulesPerPack})`,
    at: modulesPack('modules-at', LIMITS.modulesPerPack),
    over: modulesPack('modules-over', LIMITS.modulesPerPack + 1),
    atOutcome: { status: 'ok', check: (row) => expect(row.modules.filter((m) => m.status === 'ready')).toHaveLength(64) },
    overOutcome: {
      status: 'rejected',
      code: 'manifest-invalid',
      reason: 'package.json nodetool: sandboxModules: Too big: expected array to have <=64 items',
    },
  },
  {
    limit: `internal helpers per pack (${LIMITS.internalPerPack})`,
    at: internalPack('internal-at', LIMITS.internalPerPack),
    over: internalPack('internal-over', LIMITS.internalPerPack + 1),
    atOutcome: { status: 'ok', modules: { 'internal-at': 'ready' } },
    overOutcome: { status: 'rejected', code: 'manifest-invalid', reason: 'package.json nodetool: internal: Too big: expected array to have <=256 items' },
  },
  {
    limit: `warnings per pack (${LIMITS.warningsPerPack})`,
    at: warningsPack('warnings-at', LIMITS.warningsPerPack - 1),
    over: warningsPack('warnings-over', LIMITS.warningsPerPack),
    atOutcome: {
      status: 'ok',
      modules: { 'warnings-at': 'ready' },
      check: (row) => {
        expect(row.warnings).toHaveLength(256);
        expect(row.warnings.at(-1)).toEqual({ code: 'js-syntax-error', message: 'bad254.js: Unexpected token (1:13)' });
      },
    },
    overOutcome: {
      status: 'ok',
      modules: { 'warnings-over': 'ready' },
      check: (row) => {
        expect(row.warnings).toHaveLength(256);
        expect(row.warnings[0]).toEqual({ code: 'skill-missing', message: 'SKILL.md is missing; agents get no documentation for this pack.' });
        expect(row.warnings[254]).toEqual({ code: 'js-syntax-error', message: 'bad253.js: Unexpected token (1:13)' });
        expect(row.warnings[255]).toEqual({
          code: 'js-syntax-error',
          message: '2 more warnings are not listed; a pack lists at most 256. The first of them: bad254.js: Unexpected token (1:13)',
        });
      },
    },
  },
  {
    limit: `module reason length (${LIMITS.reasonChars})`,
    at: reasonAt.pack,
    over: reasonOver.pack,
    atOutcome: { status: 'ok', modules: { 'reason-at': `js-import-unresolved: ${reasonAt.reason}` } },
    overOutcome: { status: 'ok', modules: { 'reason-over': `js-import-unresolved: ${shortened(reasonOver.reason, LIMITS.reasonChars)}` } },
  },
  {
    limit: `warning message length (${LIMITS.reasonChars})`,
    at: warningAt.pack,
    over: warningOver.pack,
    atOutcome: {
      status: 'ok',
      modules: { 'warning-text-at': 'ready' },
      check: (row) => expect(row.warnings).toEqual([{ code: 'js-import-unresolved', message: warningAt.message }]),
    },
    overOutcome: {
      status: 'ok',
      modules: { 'warning-text-over': 'ready' },
      check: (row) => expect(row.warnings).toEqual([{ code: 'js-import-unresolved', message: shortened(warningOver.message, LIMITS.reasonChars) }]),
    },
  },
  {
    limit: `pack reason length (${LIMITS.reasonChars})`,
    at: cycleAt.pack,
    over: cycleOver.pack,
    atOutcome: { status: 'rejected', code: 'internal-cycle', reason: cycleAt.reason },
    overOutcome: { status: 'rejected', code: 'internal-cycle', reason: shortened(cycleOver.reason, LIMITS.reasonChars) },
  },
  {
    limit: `disclosure line length (${LIMITS.disclosureLineChars})`,
    at: lineAt.pack,
    over: lineOver.pack,
    atOutcome: {
      status: 'ok',
      modules: { 'line-at/w': 'ready' },
      check: (row) => expect(row.modules[0]?.summary).toBe(`${lineAt.head}: ${lineAt.description}`),
    },
    overOutcome: {
      status: 'ok',
      modules: { 'line-ov/w': 'ready' },
      check: (row) => expect(row.modules[0]?.summary).toBe(`${lineOver.head}: ${'d'.repeat(LIMITS.disclosureLineChars - lineOver.head.length - 5)}...`),
    },
  },
  {
    limit: `WASM export parameters (${LIMITS.wasmMaxParams})`,
    at: wasmParams('wasm-params-at', LIMITS.wasmMaxParams),
    over: wasmParams('wasm-params-over', LIMITS.wasmMaxParams + 1),
    atOutcome: { status: 'ok', modules: { 'wasm-params-at/w': 'ready' } },
    overOutcome: {
      status: 'ok',
      modules: { 'wasm-params-over/w': 'wasm-export-signature: w.wasm: export `f` takes 9 parameters (at most 8)' },
    },
  },
  {
    limit: `pack version length (${LIMITS.versionChars})`,
    at: versionPack('version-at', LIMITS.versionChars),
    over: versionPack('version-over', LIMITS.versionChars + 1),
    atOutcome: { status: 'ok', modules: { 'version-at': 'ready' }, check: (row) => expect(row.version).toHaveLength(256) },
    overOutcome: { status: 'rejected', code: 'manifest-invalid', reason: 'package.json: version: Too big: expected string to have <=256 characters' },
  },
  {
    limit: `SKILL.md description length (${LIMITS.skillDescriptionChars})`,
    at: skillPack('skill-at', LIMITS.skillDescriptionChars),
    over: skillPack('skill-over', LIMITS.skillDescriptionChars + 1),
    atOutcome: { status: 'ok', modules: { 'skill-at': 'ready' }, check: (row) => expect(row.warnings).toEqual([]) },
    overOutcome: {
      status: 'ok',
      modules: { 'skill-over': 'ready' },
      check: (row) =>
        expect(row.warnings).toEqual([
          { code: 'skill-invalid', message: 'SKILL.md frontmatter: description: Too big: expected string to have <=1024 characters' },
        ]),
    },
  },
];

const GOOD = authoredPack('good', entry('export const good = "yes";\n'));

// --- the faces ----------------------------------------------------------------------------------------

let fixture: FixtureRoot;
let services: AppServices;
let site: TempDir;
let host: WebHost;
let mcp: Client;
const bugs: string[] = [];

async function dispatch(method: string, payload: unknown = {}) {
  return services.dispatcher.handle(method, payload, { face: 'test' });
}

async function diagnostics(): Promise<PackStatusRow[]> {
  const answer = await dispatch('catalog.diagnostics');
  if (!answer.ok) throw new Error(`catalog.diagnostics answered ${answer.code}: ${answer.message}`);
  return (answer.value as { packs: PackStatusRow[] }).packs;
}

function outcomeOf(row: PackStatusRow): Outcome {
  return {
    status: row.status,
    ...(row.code ? { code: row.code } : {}),
    ...(row.reason !== undefined ? { reason: row.reason } : {}),
    modules: Object.fromEntries(row.modules.map((m) => [m.specifier, m.status === 'ready' ? 'ready' : `${m.code}: ${m.reason}`])),
  };
}

function expectOutcome(rows: readonly PackStatusRow[], name: string, expected: Outcome): void {
  const row = rows.find((r) => r.name === name);
  if (!row) throw new Error(`${name} is not in the diagnostics; they list ${rows.map((r) => r.name).join(', ')}`);
  const seen = outcomeOf(row);
  expect({ status: seen.status, code: seen.code, reason: seen.reason }, name).toEqual({
    status: expected.status,
    code: expected.code,
    reason: expected.reason,
  });
  if (expected.modules) expect(seen.modules, name).toEqual(expected.modules);
  expected.check?.(row);
}

beforeAll(async () => {
  fixture = await createFixtureRoot();
  for (const c of CASES) {
    await writeLimitPack(fixture.root, c.at);
    await writeLimitPack(fixture.root, c.over);
  }
  await writeLimitPack(fixture.root, GOOD);
  const created = await createAppServices({ dataDir: fixture.root, onBug: (where, error) => bugs.push(`${where}: ${String(error)}`) });
  if (!created.ok) throw new Error(created.message);
  services = created.value;
  site = await staticBuild();
  host = await startWebHost({ dispatcher: services.dispatcher, events: services.events, catalog: services.catalog, staticDir: site.path, port: 0 });
  const summaries = await dispatch('catalog.summaries');
  const allow = summaries.ok ? (summaries.value as { modules: ModuleSummary[] }).modules.map((m) => m.specifier) : ['good'];
  const server = createMcpFace({ dispatcher: services.dispatcher, allow, version: 'test' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  mcp = new Client({ name: 'answer-limits-test', version: '1.0.0' });
  await mcp.connect(clientSide);
}, 240_000);

afterAll(async () => {
  await mcp?.close();
  await host?.close();
  await services?.dispose();
  await site?.remove();
  await fixture?.dispose();
});

describe('discovery holds every pack to the bounds of the answer schemas', () => {
  for (const c of CASES) {
    it(`${c.limit}: ${c.at.name} stays as it is, ${c.over.name} is held to the limit with its reason`, async () => {
      const rows = await diagnostics();
      expectOutcome(rows, c.at.name, c.atOutcome);
      expectOutcome(rows, c.over.name, c.overOutcome);
      expectOutcome(rows, 'good', { status: 'ok', modules: { good: 'ready' } });
    });
  }

  it('reports no contract violation while it answers', async () => {
    await diagnostics();
    expect(bugs).toEqual([]);
  });
});

describe('every face still answers', () => {
  it('catalog.summaries lists every module of every pack, the good one ready', async () => {
    const answer = await dispatch('catalog.summaries');
    expect(answer.ok).toBe(true);
    const modules = (answer as { value: { modules: ModuleSummary[] } }).value.modules;
    expect(modules.find((m) => m.specifier === 'good')?.status).toBe('ready');
    expect(modules.find((m) => m.specifier === 'exports-over')?.code).toBe('module-over-limit');
  });

  it('catalog.skillDoc answers for the pack whose SKILL.md is at the limit', async () => {
    const doc = await dispatch('catalog.skillDoc', { packName: 'skill-at' });
    expect(doc.ok && (doc.value as { description: string }).description).toBe('s'.repeat(1024));
  });

  it('the MCP list_sandbox_modules tool lists the ready modules and none that were held back', async () => {
    const listed = (await mcp.callTool({ name: 'list_sandbox_modules', arguments: {} })) as CallToolResult;
    expect(listed.isError).toBeUndefined();
    const specifiers = (listed.structuredContent as { modules: { specifier: string }[] }).modules.map((m) => m.specifier);
    expect(specifiers).toContain('good');
    expect(specifiers).toContain('exports-at');
    expect(specifiers).not.toContain('exports-over');
    expect(specifiers).not.toContain('npm-exports-over');
  });

  it("the web host's rpc route answers 200 with the list", async () => {
    for (const method of ['catalog.summaries', 'catalog.diagnostics']) {
      const res = await raw(host.port, {
        method: 'POST',
        path: `/api/rpc/${method}`,
        headers: { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(res.status, method).toBe(200);
      expect((res.json() as { ok: boolean }).ok, method).toBe(true);
    }
  });

  it('`discover --json` exits 0 and lists every pack', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['discover', '--root', fixture.root, '--json'], { out: (t) => out.push(t), err: (t) => err.push(t) });
    expect({ code, err }).toEqual({ code: 0, err: [] });
    const json = JSON.parse(out.join('')) as { packs: { name: string; modules: { specifier: string; status: string; code?: string }[] }[] };
    expect(json.packs.map((p) => p.name).sort()).toEqual([...CASES.flatMap((c) => [c.at.name, c.over.name]), 'good'].sort());
    expect(json.packs.find((p) => p.name === 'exports-over')?.modules).toMatchObject([
      { specifier: 'exports-over', status: 'skipped', code: 'module-over-limit' },
    ]);
  });
});
