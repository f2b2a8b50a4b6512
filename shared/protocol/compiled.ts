// One way to parse a boundary's hot messages fast: zod's own compiled parser (z.compile), which
// answers exactly as the schema does — the same data, and on a refusal the schema's own issues —
// from generated code instead of a walk of the schema. So no hand-written validator sits beside a
// schema, and every caller still parses with the schema. Generated code needs `new Function`: where
// the environment refuses it (a page or worker whose CSP has no 'unsafe-eval'), zod's one probe
// (util.allowsEval, which zod runs anyway for its object parser) says so, and the schema parses as
// it is, without a second attempt that would report another CSP violation.

import { z } from 'zod';

export type SafeParse<T> = (raw: unknown) => z.ZodSafeParseResult<T>;

/** Whether zod may generate code here (false under `z.config({ jitless: true })` or a CSP without 'unsafe-eval'). */
export function compilesHere(): boolean {
  return !z.config().jitless && z.util.allowsEval.value;
}

/**
 * `schema.safeParse`, from zod's compiled form of the schema where zod can compile it (it cannot
 * compile a schema with a reference cycle: such a schema parses as it is). Compiled on the first
 * call, so a module that declares parsers costs nothing until one is used.
 */
export function compiled<S extends z.ZodType>(schema: S): SafeParse<z.output<S>> {
  let parse: SafeParse<z.output<S>> | undefined;
  return (raw) => {
    if (!parse) {
      const fast = compilesHere() ? z.compile(schema) : schema;
      parse = (value) => fast.safeParse(value);
    }
    return parse(raw);
  };
}
