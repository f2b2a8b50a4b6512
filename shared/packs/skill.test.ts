import { describe, expect, it } from 'vitest';
import { checkSkill, parseFrontmatter } from './skill.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('checkSkill', () => {
  it('reads frontmatter and body', () => {
    const result = checkSkill({ bytes: bytes('---\nname: acme-geo\ndescription: "Distances: fast."\n# comment\nversion: 1\n---\n# Body\ntext\n') });
    expect(result).toEqual({
      ok: true,
      skill: { frontmatter: { name: 'acme-geo', description: 'Distances: fast.', version: '1' }, body: '# Body\ntext\n' },
    });
  });

  it.each([
    [{}, 'skill-missing', 'SKILL.md is missing; agents get no documentation for this pack.'],
    [{ size: 16 * 1024 + 1 }, 'skill-too-large', 'SKILL.md is 16.0 KB, over the 16 KB limit; it is ignored.'],
    [{ bytes: bytes('# no frontmatter') }, 'skill-invalid', 'SKILL.md: the file must start with a "---" frontmatter block.'],
    [{ bytes: bytes('---\nname: x\n') }, 'skill-invalid', 'SKILL.md: the frontmatter block is not closed with "---".'],
    [{ bytes: bytes('---\nname: x\nname: y\n---\n') }, 'skill-invalid', 'SKILL.md: line 3: "name" appears twice.'],
    [{ bytes: bytes('---\n- list\n---\n') }, 'skill-invalid', 'SKILL.md: line 2: expected "key: value".'],
    [{ bytes: bytes('---\nname: "open\n---\n') }, 'skill-invalid', 'SKILL.md: line 2: unbalanced quotes in the value of "name".'],
    [{ bytes: bytes('---\nname: Bad Name\n---\n') }, 'skill-invalid', 'SKILL.md frontmatter: name: use lower-case letters, digits, ".", "_" or "-"; description: Invalid input: expected string, received undefined'],
    [{ bytes: Uint8Array.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff]) }, 'skill-invalid', 'SKILL.md is not valid UTF-8 text.'],
  ])('%j → %s', (input, code, message) => {
    expect(checkSkill(input)).toEqual({ ok: false, warning: { code, message } });
  });

  it('does not let a key named __proto__ touch the prototype', () => {
    const parsed = parseFrontmatter('---\n__proto__: x\n---\n');
    expect(parsed.ok).toBe(false);
  });
});
