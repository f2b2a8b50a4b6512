// `sandbox-packs discover`: run discovery over an install root and show what the catalog would
// hold, as a table for people or as JSON for scripts. The catalog is opened the way the app opens
// it (openRootCatalog: ledger-filtered in a managed root, with the real npm compiler) and read
// through catalog.diagnostics, so what it prints is what the app would load. Exit 0 whenever discovery ran, even with rejected
// packs; 2 on bad usage or an unreadable root.

import type { PackStatusRow } from '../../../shared/contract/schemas.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';
import { EXIT, type CliCommand } from '../command.ts';
import { parseCliArgs, ROOT_OPTIONS, rootOf } from '../args.ts';
import { withCliServices } from '../cli-services.ts';
import { repairIfNeeded } from '../cli-support.ts';
import { usageText } from '../usage.ts';

const OPTIONS = { root: ROOT_OPTIONS.root, json: { kind: 'boolean', help: 'print machine-readable JSON' } } as const;

const USAGE = usageText({
  synopsis: 'discover',
  about: ['Lists the sandbox packs of an install root and the status of each module, without running any pack code.'],
  options: OPTIONS,
});

export interface DiscoverJson {
  readonly root: string;
  readonly packs: readonly {
    readonly name: string;
    readonly version: string;
    readonly status: 'ok' | 'rejected';
    readonly code?: string;
    readonly reason?: string;
    readonly warnings: readonly string[];
    readonly modules: readonly {
      readonly specifier: string;
      readonly kind: 'js' | 'wasm';
      readonly status: 'ready' | 'skipped';
      readonly code?: string;
      readonly reason?: string;
      readonly moduleId?: string;
      readonly digest?: string;
      readonly summary?: string;
      readonly exports?: readonly string[];
    }[];
  }[];
}

export function toDiscoverJson(root: string, packs: readonly PackStatusRow[]): DiscoverJson {
  return {
    root,
    packs: packs.map((p) => ({
      name: p.name,
      version: p.version,
      status: p.status,
      ...(p.code ? { code: p.code } : {}),
      ...(p.reason !== undefined ? { reason: p.reason } : {}),
      warnings: p.warnings.map((w) => `${w.code}: ${w.message}`),
      modules: p.modules.map((m) => ({
        specifier: m.specifier,
        kind: m.kind,
        status: m.status,
        ...(m.code ? { code: m.code } : {}),
        ...(m.reason !== undefined ? { reason: m.reason } : {}),
        ...(m.moduleId ? { moduleId: m.moduleId } : {}),
        ...(m.digest ? { digest: m.digest } : {}),
        summary: m.summary,
        ...(m.exports ? { exports: m.exports } : {}),
      })),
    })),
  };
}

// Pack text reaches the terminal here: one line per cell, hidden characters shown as \uXXXX
// (before the widths are measured, so the columns line up).
const cell = (text: string): string => displayText(text);

function table(json: DiscoverJson): string {
  if (json.packs.length === 0) return `No sandbox packs in ${json.root}.`;
  const rows: string[][] = [['PACK / MODULE', 'VERSION', 'KIND', 'STATUS', 'DETAIL']];
  for (const pack of json.packs) {
    rows.push([pack.name, pack.version, '', pack.status, pack.reason ?? (pack.warnings.length ? `${pack.warnings.length} warning(s)` : '')]);
    for (const m of pack.modules) rows.push([`  ${m.specifier}`, '', m.kind, m.status, m.reason ?? m.digest?.slice(0, 12) ?? '']);
    for (const w of pack.warnings) rows.push(['  (warning)', '', '', '', w]);
  }
  const widths = [0, 1, 2, 3].map((i) => Math.min(60, Math.max(...rows.map((r) => cell(r[i] ?? '').length))));
  const lines = rows.map((r) =>
    r
      .map((text, i) => (i < 4 ? cell(text).padEnd(widths[i] ?? 0) : cell(text)))
      .join('  ')
      .trimEnd(),
  );
  const modules = json.packs.flatMap((p) => p.modules);
  const ready = modules.filter((m) => m.status === 'ready').length;
  const rejected = json.packs.filter((p) => p.status === 'rejected').length;
  lines.push('', `${json.packs.length} pack(s), ${rejected} rejected; ${ready} of ${modules.length} module(s) ready. Root: ${json.root}`);
  return lines.join('\n');
}

export const discoverCommand: CliCommand = {
  name: 'discover',
  summary: 'List the sandbox packs of an install root and their modules',
  options: OPTIONS,
  usage: USAGE,
  async run(args, io) {
    const { values } = parseCliArgs(args, OPTIONS, { positionals: false });
    const root = rootOf(values.root, io);
    await repairIfNeeded(root, io);
    return withCliServices(root, io, {}, async (services) => {
      const catalog = await services.openCatalog();
      if (!catalog.ok) {
        io.err(catalog.message);
        return EXIT.usage;
      }
      const diagnostics = await services.call('catalog.diagnostics', {});
      if (!diagnostics.ok) {
        io.err(`${diagnostics.code}: ${diagnostics.message}`);
        return EXIT.failed;
      }
      const out = toDiscoverJson(root, diagnostics.value.packs);
      io.out(values.json ? JSON.stringify(out, null, 2) : table(out));
      return EXIT.ok;
    });
  },
};
