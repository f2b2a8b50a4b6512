// `sandbox-packs validate WORKFLOW.json`: code.validate through the contract dispatcher — check a
// workflow's Code nodes against an install root before anything runs: unknown specifiers (naming
// the pack to install), imports missing from a node's declaration, declared-but-unused packages,
// version and content-digest drift. Exit 1 when
// any error is found, 0 when only warnings (or nothing), 2 on bad usage or an unreadable workflow.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RequestOf } from '../../../shared/contract/methods.ts';
import type { Workflow } from '../../../shared/protocol/workflow.ts';
import { packOfSpecifier } from '../../../shared/workflow/validate-workflow.ts';
import { EXIT, type CliCommand } from '../command.ts';
import { onlyPositional, parseCliArgs, ROOT_OPTIONS, rootOf } from '../args.ts';
import { withCliServices } from '../cli-services.ts';
import { usageText } from '../usage.ts';

const OPTIONS = {
  root: ROOT_OPTIONS.root,
  json: { kind: 'boolean', help: 'print { ok, issues: [{ nodeId, severity, code, message, specifier? }] }' },
} as const;

const USAGE = usageText({
  synopsis: 'validate WORKFLOW.json',
  about: ["Checks each Code node's packages declaration and imports against the packs of an install root."],
  options: OPTIONS,
  footer: ['Exit status: 0 no errors (warnings allowed), 1 errors found, 2 bad usage or unreadable workflow.'],
});

export const validate: CliCommand = {
  name: 'validate',
  summary: "Check a workflow's Code-node packages and imports before running it",
  options: OPTIONS,
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseCliArgs(args, OPTIONS);
    const file = path.resolve(io.cwd, onlyPositional(positionals, 'WORKFLOW.json'));
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(file, 'utf8')) as unknown;
    } catch (error) {
      io.err(`Cannot read ${file} as JSON: ${error instanceof Error ? error.message : String(error)}`);
      return EXIT.usage;
    }
    return withCliServices(rootOf(values.root, io), io, {}, async (services) => {
      const catalog = await services.openCatalog();
      if (!catalog.ok) {
        io.err(catalog.message);
        return EXIT.usage;
      }
      // The file goes in as it was read: the dispatcher's WorkflowSchema checks it, and a malformed
      // workflow comes back as an invalid request.
      const result = await services.call('code.validate', { workflow: raw } as RequestOf<'code.validate'>);
      if (!result.ok) {
        io.err(result.code === 'invalid-request' ? `${file} is not a workflow: ${result.message}` : `${result.code}: ${result.message}`);
        return result.code === 'invalid-request' ? EXIT.usage : EXIT.failed;
      }
      const { issues } = result.value;
      const errors = issues.filter((i) => i.severity === 'error').length;
      if (values.json) io.out(JSON.stringify({ ok: errors === 0, issues }, null, 2));
      else {
        for (const i of issues) {
          // The issue's sentence fits every face; here the command that acts on it is added.
          const saved = (raw as Workflow).nodes.find((n) => n.id === i.nodeId)?.packages.find((d) => d.specifier === i.specifier)?.resolvedPackVersion;
          const spec = i.specifier ? `${packOfSpecifier(i.specifier)}${saved ? `@${saved}` : ''}` : '';
          // A likely misspelling (a suggestion is offered) is never turned into an install command for the name as typed.
          const hint = i.code === 'unknown-specifier' && i.specifier && i.suggestion === undefined ? ` (sandbox-packs install ${spec})` : '';
          io.out(`${i.severity === 'error' ? 'error  ' : 'warning'} ${i.nodeId}: ${i.message}${hint} [${i.code}]`);
        }
        io.out(`${(raw as Workflow).nodes.length} node(s): ${errors} error(s), ${issues.length - errors} warning(s).`);
      }
      return errors ? EXIT.failed : EXIT.ok;
    });
  },
};
