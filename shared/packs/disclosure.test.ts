import { describe, expect, it } from 'vitest';
import { LIMITS } from '../protocol/limits.ts';
import { disclosureLine, sanitizeDisclosureText } from './disclosure.ts';

describe('disclosureLine', () => {
  it('builds one line from manifest fields', () => {
    expect(disclosureLine({ specifier: '@acme/geo/simplify-wasm', kind: 'wasm', exports: ['add', 'scale'], description: 'Adds numbers.' })).toBe(
      '@acme/geo/simplify-wasm (wasm; exports add, scale): Adds numbers.',
    );
    expect(disclosureLine({ specifier: 'csv', kind: 'js' })).toBe('csv (js)');
    expect(disclosureLine({ specifier: '@a.b/c~d_e-f', kind: 'js' })).toBe('@a.b/c~d_e-f (js)');
  });

  it('strips markup, newlines and non-whitelisted characters', () => {
    const line = disclosureLine({ specifier: 'p', kind: 'js', description: 'Bold <b>x</b> `code` [link](u)\n\n# Heading\r\n* item \u202e rtl' });
    expect(line).toBe('p (js): Bold b x /b code link (u) Heading item rtl');
    expect(line).not.toMatch(/[\n\r`<>[\]#*]/);
  });

  it('caps the description at LIMITS.disclosureChars', () => {
    const line = disclosureLine({ specifier: 'p', kind: 'js', description: 'word '.repeat(100) });
    const description = line.slice('p (js): '.length);
    expect(description.length).toBeLessThanOrEqual(120);
    expect(description.endsWith('...')).toBe(true);
  });

  it('drops export names that are not plain identifiers and bounds the list', () => {
    const names = ['ok', 'bad name', '<x>', ...Array.from({ length: 10 }, (_, i) => `f${i}`)];
    expect(disclosureLine({ specifier: 'p', kind: 'wasm', exports: names })).toBe('p (wasm; exports ok, f0, f1, f2, f3, f4, f5, f6, +3 more)');
  });

  it('keeps the whole line within LIMITS.disclosureLineChars: export names give way first, then the description is shortened', () => {
    const specifier = `@${'s'.repeat(100)}/${'p'.repeat(113)}/${'m'.repeat(64)}`;
    const names = Array.from({ length: 8 }, (_, i) => `f${i}${'a'.repeat(62)}`);
    const line = disclosureLine({ specifier, kind: 'wasm', exports: names, description: 'word '.repeat(30) });
    expect(line.length).toBeLessThanOrEqual(LIMITS.disclosureLineChars);
    // Two names fit beside the description's share (40 characters); the rest are counted.
    expect(line).toBe(`${specifier} (wasm; exports ${names[0]}, ${names[1]}, +6 more): ${'word '.repeat(7).trim()}...`);
    // Exactly at the bound nothing gives way.
    const short = names.map((n) => n.slice(0, 40));
    const head = `pppppppppp (wasm; exports ${short.join(', ')})`;
    const exact = disclosureLine({ specifier: 'pppppppppp', kind: 'wasm', exports: short, description: 'd'.repeat(LIMITS.disclosureLineChars - head.length - 2) });
    expect(exact).toBe(`${head}: ${'d'.repeat(LIMITS.disclosureLineChars - head.length - 2)}`);
  });

  it('sanitizes any text to the whitelist', () => {
    expect(sanitizeDisclosureText('  a\t\tb  ')).toBe('a b');
    expect(sanitizeDisclosureText('ｆｕｌｌ')).toBe('full');
  });
});
