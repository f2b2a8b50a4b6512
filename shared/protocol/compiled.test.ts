// compiled() answers exactly as the schema does, and where zod may not generate code (jitless, as
// under the browser runner's CSP without 'unsafe-eval') it never tries to: no `new Function`
// that a CSP would report, just the schema's own parse.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compiled, compilesHere } from './compiled.ts';

const make = () => z.object({ name: z.string().min(1), tags: z.array(z.enum(['a', 'b'])).max(2), count: z.number().int().optional() }).strict();
const inputs: unknown[] = [
  { name: 'x', tags: ['a'] },
  { name: 'x', tags: ['a'], count: 2 },
  { name: '', tags: ['c', 'a', 'b'] },
  { name: 'x', tags: [], extra: 1 },
  null,
  [],
];

afterEach(() => {
  z.config({ jitless: false });
});

describe('compiled', () => {
  it("gives the schema's data and issues, from zod's generated parser here", () => {
    expect(compilesHere()).toBe(true);
    const schema = make();
    const parse = compiled(schema);
    for (const input of inputs) expect(parse(input)).toEqual(schema.safeParse(input));
  });

  it('parses with the schema as it is, generating no code, where zod may not', () => {
    z.config({ jitless: true });
    expect(compilesHere()).toBe(false);
    const schema = make();
    const parse = compiled(schema);
    const original = globalThis.Function;
    let made = 0;
    globalThis.Function = new Proxy(original, {
      construct(target, args: string[]) {
        made++;
        return Reflect.construct(target, args) as object;
      },
    });
    try {
      for (const input of inputs) expect(parse(input)).toEqual(schema.safeParse(input));
    } finally {
      globalThis.Function = original;
    }
    expect(made).toBe(0);
  });
});
