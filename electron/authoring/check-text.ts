// The check report as a person reads it in a terminal: verdict, install mode and scripts, one row
// per module, the sizes against their caps as a table, the examples, then every problem with its
// file, line and code. Pack-supplied text goes through displayText (hidden characters shown).

import { displayText } from '../../shared/protocol/display-text.ts';
import { formatBytes } from '../../shared/protocol/limits.ts';
import type { CheckReport } from './pack-check.ts';

const MODE_TEXT = {
  'sandbox-only': 'sandbox-only: active at once after install; install scripts never run',
  register: "register: waits for the user's trust (host code) before anything of it runs",
  hybrid: "hybrid: waits for the user's trust (host code or install scripts) before it is active",
} as const;

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

export function checkText(report: CheckReport): string {
  const t = (text: string): string => displayText(text);
  const lines: string[] = [];
  lines.push(
    `${t(report.name)}@${t(report.version)}: ${report.ok ? 'check passed' : `check FAILED (${report.problems.length} problem${report.problems.length === 1 ? '' : 's'})`}`,
  );
  lines.push(
    `npm pack: ${report.tarball.files.length} file(s), ${formatBytes(report.tarball.size)} packed, ${formatBytes(report.tarball.unpackedSize)} unpacked: ${report.tarball.files.map(t).join(', ')}`,
  );
  lines.push(`Install mode: ${MODE_TEXT[report.installMode]}`);
  if (report.scripts.length) {
    lines.push('Install scripts a user would be shown:');
    for (const s of report.scripts) lines.push(`  ${t(s.package)}@${t(s.version)} ${s.event}: ${t(s.command)}${s.own ? '' : ' (dependency)'}`);
  } else lines.push('Install scripts: none');

  lines.push('', 'Modules:');
  lines.push(
    ...table([
      ['SPECIFIER', 'KIND', 'STATUS', 'DETAIL'],
      ...report.modules.map((m) => [
        t(m.specifier),
        m.kind,
        m.status,
        m.status === 'ready' ? t(m.summary) + (m.signatures ? `; exports ${m.signatures.map(t).join(', ')}` : '') : `${m.code ?? ''}: ${t(m.reason ?? '')}`,
      ]),
    ]).map((l) => `  ${l}`),
  );

  lines.push('', 'Sizes:');
  lines.push(
    ...table([
      ['FILE', 'WHAT', 'SIZE', 'CAP', 'USED'],
      ...report.sizes.map((s) => [
        t(s.file),
        t(s.what),
        formatBytes(s.bytes),
        formatBytes(s.cap),
        `${Math.round((s.bytes / s.cap) * 1000) / 10}%${s.bytes > s.cap ? ' OVER' : ''}`,
      ]),
    ]).map((l) => `  ${l}`),
  );

  if (report.examples) {
    const passed = report.examples.filter((e) => e.status === 'passed').length;
    lines.push('', `SKILL.md examples: ${passed} of ${report.examples.length} passed`);
    for (const e of report.examples)
      lines.push(
        `  line ${e.fenceLine}: ${e.status}${e.assertions ? ` (${e.assertions} value${e.assertions === 1 ? '' : 's'} checked)` : ''}${e.note ? ` (${t(e.note)})` : ''}`,
      );
  } else lines.push('', 'SKILL.md examples: not run (--no-examples)');

  if (report.warnings.length) {
    lines.push('', 'Warnings:');
    for (const w of report.warnings) lines.push(`  ${w.code}: ${t(w.message)}`);
  }
  if (report.problems.length) {
    lines.push('', 'Problems:');
    for (const p of report.problems)
      lines.push(`  ${p.file ? `${p.file}${p.line ? `:${p.line}` : ''} ` : ''}${p.code}: ${t(p.message.replace(/^SKILL\.md line \d+: /, ''))}`);
  }
  return lines.join('\n');
}
