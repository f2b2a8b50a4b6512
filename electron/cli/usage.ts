// A command's --help text, generated from the same option declaration its parser reads (args.ts),
// so the help never lists an option the parser refuses, nor hides one it takes.

import type { OptionDecl, OptionDecls } from './args.ts';

export interface UsageSpec {
  /** After "sandbox-packs ": the command and its positionals, e.g. "install SPEC". */
  readonly synopsis: string;
  readonly options: OptionDecls;
  /** Lines between the usage line and the options (what the command does). */
  readonly about?: readonly string[];
  /** Lines after the options (exit status, notes). */
  readonly footer?: readonly string[];
}

const WIDTH = 110;
const HELP_COLUMN_MAX = 24;

/** `--name VALUE` as the help names it. */
export function optionLabel(name: string, option: OptionDecl): string {
  return option.kind === 'boolean' ? `--${name}` : `--${name} ${option.value ?? 'VALUE'}`;
}

function synopsisLines(synopsis: string, options: OptionDecls): string[] {
  const head = `Usage: sandbox-packs ${synopsis}`;
  const parts = Object.entries(options).map(([name, option]) => `[${optionLabel(name, option)}]${option.kind === 'strings' ? '...' : ''}`);
  const indent = ' '.repeat(Math.min(head.length + 1, 40));
  const lines = [head];
  for (const part of parts) {
    const last = lines.length - 1;
    if (`${lines[last]} ${part}`.length <= WIDTH) lines[last] = `${lines[last]} ${part}`;
    else lines.push(`${indent}${part}`);
  }
  return lines;
}

function optionLines(options: OptionDecls): string[] {
  const labels = Object.entries(options).map(([name, option]) => [optionLabel(name, option), option.help] as const);
  const column = Math.min(HELP_COLUMN_MAX, Math.max(0, ...labels.map(([label]) => label.length)));
  return labels.flatMap(([label, help]) => {
    const [first, ...more] = help.split('\n');
    const lead = label.length > column ? [`  ${label}`, `  ${' '.repeat(column)}  ${first}`] : [`  ${label.padEnd(column)}  ${first}`];
    return [...lead, ...more.map((line) => `  ${' '.repeat(column)}  ${line}`)];
  });
}

/** The full --help text: usage line(s), what the command does, its options, then the footer. */
export function usageText(spec: UsageSpec): string {
  const lines = synopsisLines(spec.synopsis, spec.options);
  if (spec.about?.length) lines.push('', ...spec.about);
  if (Object.keys(spec.options).length) lines.push('', 'Options:', ...optionLines(spec.options));
  if (spec.footer?.length) lines.push('', ...spec.footer);
  return lines.join('\n');
}
