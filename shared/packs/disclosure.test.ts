import { describe, expect, it } from 'vitest';
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

  it('sanitizes any text to the whitelist', () => {
    expect(sanitizeDisclosureText('  a\t\tb  ')).toBe('a b');
    expect(sanitizeDisclosureText('ｆｕｌｌ')).toBe('full');
  });
});
