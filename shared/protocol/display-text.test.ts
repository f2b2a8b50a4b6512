import { describe, expect, it } from 'vitest';
import { displayText } from './display-text.ts';

describe('displayText', () => {
  it('shows the bidi override of a Trojan-Source file name instead of applying it', () => {
    expect(displayText('invoice\u202Egnp.exe')).toBe('invoice\\u202Egnp.exe');
  });

  it('escapes every zero-width, bidi mark, embedding, override and isolate character, and the BOM', () => {
    const hidden = [
      0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0xfeff, 0x061c, 0x180e, 0x2028, 0x2029,
      0x2060, 0x2064,
    ];
    for (const code of hidden) {
      const hex = code.toString(16).toUpperCase().padStart(4, '0');
      expect(displayText(`a${String.fromCharCode(code)}b`), hex).toBe(`a\\u${hex}b`);
    }
  });

  it('escapes C0 and C1 controls and DEL; keeps line breaks and tabs only for multi-line text, never a lone CR', () => {
    expect(displayText('\u001b[2Jred\rover\ttab\u0000\u007f\u0085\u009b')).toBe('\\u001B[2Jred\\u000Dover\\u0009tab\\u0000\\u007F\\u0085\\u009B');
    expect(displayText('line 1\nline 2')).toBe('line 1\\u000Aline 2');
    expect(displayText('line 1\r\n\tline 2\rhidden\n\u202E', { multiline: true })).toBe('line 1\n\tline 2\\u000Dhidden\n\\u202E');
  });

  it('leaves ordinary text alone, non-Latin scripts and emoji included, and is idempotent', () => {
    const plain = 'ok: façade — 東京 — مرحبا — 😀 — C:\\path\\u202E literal';
    expect(displayText(plain)).toBe(plain);
    const once = displayText('x\u202Ey\u200Bz');
    expect(displayText(once)).toBe(once);
  });

  it('turns JSON text into JSON with the same value and no hidden character left', () => {
    const value = { name: 'a\u202Eb', text: 'c\u200Bd\\', n: [1, '\u2066'] };
    const shown = displayText(JSON.stringify(value, null, 2), { multiline: true });
    expect(shown).not.toMatch(/[\u200b\u202e\u2066]/);
    expect(JSON.parse(shown)).toEqual(value);
  });
});
