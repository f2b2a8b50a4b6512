// `sandbox-packs validate WORKFLOW.json`: check a workflow's Code nodes against an install root
// before anything runs — unknown specifiers (naming the pack to install), imports missing from a
// node's declaration, declared-but-unused packages, version and content-digest drift. Exit 1 when
// any error is found, 0 when only warnings (or nothing), 2 on bad usage or an unreadable workflow.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseWith } from '../../../shared/protocol/parse.ts';
import { WorkflowSchema } from '../../../shared/protocol/workflow.ts';
import { validateWorkflow } from '../../../shared/sandbox/validate-workflow.ts';
import { openRootCatalog, resolveRoot } from '../../validation/root-catalog.ts';
import { EXIT, UsageError, type CliCommand } from '../command.ts';

const USAGE = [
  'Usage: sandbox-packs validate WORKFLOW.json [--root DIR] [--json]',
  '',
  'Checks each Code node\'s packages declaration and imports against the packs of an install root.',
  '',
  'Options:',
  '  --root DIR  install root (default: the app data directory, or SANDBOX_PACKS_ROOT)',
  '  --json      print { ok, issues: [{ nodeId, severity, code, message, specifier? }] }',
  '',
  'Exit status: 0 no errors (warnings allowed), 1 errors found, 2 bad usage or unreadable workflow.',
].join('\n');

export const validate: CliCommand = {
  name: 'validate',
  summary: 'Check a workflow\'s Code-node packages and imports before running it',
  usage: USAGE,
  async run(args, io) {
    let root: string | undefined;
    let json = false;
    const files: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] as string;
      if (arg === '--json') json = true;
      else if (arg === '--root' || arg.startsWith('--root=')) {
        const value = arg === '--root' ? args[++i] : arg.slice('--root='.length);
        if (!value) throw new UsageError('--root needs a directory.');
        root = value;
      } else if (arg.startsWith('-')) throw new UsageError(`Unknown option "${arg}".`);
      else files.push(arg);
    }
    if (files.length !== 1) throw new UsageError('Give exactly one WORKFLOW.json.');
    const file = path.resolve(io.cwd, files[0] as string);
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(file, 'utf8')) as unknown;
    } catch (error) {
      io.err(`Cannot read ${file} as JSON: ${error instanceof Error ? error.message : String(error)}`);
      return EXIT.usage;
    }
    const workflow = parseWith(WorkflowSchema, raw, file);
    if (!workflow.ok) {
      io.err(workflow.message);
      return EXIT.usage;
    }
    const catalog = await openRootCatalog(resolveRoot(root, io));
    if (!catalog.ok) {
      io.err(catalog.message);
      return EXIT.usage;
    }
    const issues = validateWorkflow(workflow.value, catalog.value);
    const errors = issues.filter((i) => i.severity === 'error').length;
    if (json) io.out(JSON.stringify({ ok: errors === 0, issues }, null, 2));
    else {
      for (const i of issues) io.out(`${i.severity === 'error' ? 'error  ' : 'warning'} ${i.nodeId}: ${i.message} [${i.code}]`);
      io.out(`${workflow.value.nodes.length} node(s): ${errors} error(s), ${issues.length - errors} warning(s).`);
    }
    return errors ? EXIT.failed : EXIT.ok;
  },
};
