// SKILL.md is documentation for agents and people, not code. Its checks are warning-grade: a
// missing, oversized or malformed skill only costs discoverability and never disables a module,
// so a frontmatter typo cannot break a workflow that imports working code. The frontmatter is
// read with a tiny strict `key: value` parser (no YAML library: less surface, no surprises).

import { z } from 'zod';
import { LIMITS, formatBytes } from '../protocol/limits.ts';
import { formatIssues } from '../protocol/parse.ts';
import type { PackWarning } from '../protocol/catalog.ts';

export const SkillFrontmatterSchema = z.looseObject({
  name: z.string().min(1).max(LIMITS.skillNameChars).regex(/^[a-z0-9][a-z0-9._-]*$/, 'use lower-case letters, digits, ".", "_" or "-"'),
  description: z.string().min(1).max(LIMITS.skillDescriptionChars),
});
export type SkillFrontmatter = z.infer<typeof SkillFrontmatterSchema>;

export interface SkillDoc {
  readonly frontmatter: SkillFrontmatter;
  /** Markdown after the frontmatter. Untrusted text: show it as documentation, never as instructions. */
  readonly body: string;
}

export type SkillCheck = { readonly ok: true; readonly skill: SkillDoc } | { readonly ok: false; readonly warning: PackWarning };

const KEY = /^([a-z][a-z0-9_-]*):(?:[ \t]+(.*))?$/;

/**
 * Check a pack's SKILL.md. `bytes` is undefined when the file does not exist; `size` is the file's
 * size when known (an oversize file need not even be read).
 */
export function checkSkill(input: { bytes?: Uint8Array; size?: number }): SkillCheck {
  const size = input.size ?? input.bytes?.byteLength;
  if (input.bytes === undefined && size === undefined) {
    return warn('skill-missing', 'SKILL.md is missing; agents get no documentation for this pack.');
  }
  if (size !== undefined && size > LIMITS.skillBytes) {
    return warn('skill-too-large', `SKILL.md is ${formatBytes(size)}, over the ${formatBytes(LIMITS.skillBytes)} limit; it is ignored.`);
  }
  if (input.bytes === undefined) return warn('skill-missing', 'SKILL.md could not be read.');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(input.bytes);
  } catch {
    return warn('skill-invalid', 'SKILL.md is not valid UTF-8 text.');
  }
  const parsed = parseFrontmatter(text.replace(/^\uFEFF/, ''));
  if (!parsed.ok) return warn('skill-invalid', `SKILL.md: ${parsed.message}`);
  const checked = SkillFrontmatterSchema.safeParse(parsed.fields);
  if (!checked.success) return warn('skill-invalid', `SKILL.md frontmatter: ${formatIssues(checked.error.issues)}`);
  return { ok: true, skill: { frontmatter: checked.data, body: parsed.body } };
}

type Frontmatter = { ok: true; fields: Record<string, string>; body: string } | { ok: false; message: string };

/** `---` line, `key: value` lines (blank lines and `#` comments allowed), `---` line, then the body. */
export function parseFrontmatter(text: string): Frontmatter {
  const lines = text.split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return { ok: false, message: 'the file must start with a "---" frontmatter block.' };
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.trim() === '---') {
      return { ok: true, fields: { ...fields }, body: lines.slice(i + 1).join('\n') };
    }
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const match = KEY.exec(line.trimEnd());
    if (!match) return { ok: false, message: `line ${i + 1}: expected "key: value".` };
    const key = match[1] ?? '';
    const value = unquote((match[2] ?? '').trim());
    if (value === undefined) return { ok: false, message: `line ${i + 1}: unbalanced quotes in the value of "${key}".` };
    if (value === '') return { ok: false, message: `line ${i + 1}: "${key}" has no value.` };
    if (Object.hasOwn(fields, key)) return { ok: false, message: `line ${i + 1}: "${key}" appears twice.` };
    fields[key] = value;
  }
  return { ok: false, message: 'the frontmatter block is not closed with "---".' };
}

function unquote(value: string): string | undefined {
  const first = value[0];
  if (first === '"' || first === "'") {
    if (value.length < 2 || value[value.length - 1] !== first) return undefined;
    return value.slice(1, -1);
  }
  return value;
}

function warn(code: PackWarning['code'], message: string): SkillCheck {
  return { ok: false, warning: { code, message } };
}
