// Every subcommand of `sandbox-packs`, in the order the help lists them.
import type { CliCommand } from '../command.ts';
import { discoverCommand } from './discover.ts';
import { install } from './install.ts';
import { uninstall } from './uninstall.ts';
import { update } from './update.ts';
import { trust } from './trust.ts';
import { untrust } from './untrust.ts';
import { rebuild } from './rebuild.ts';
import { list } from './list.ts';
import { search } from './search.ts';
import { serve } from './serve.ts';
import { run } from './run.ts';
import { validate } from './validate.ts';
import { firstRun } from './first-run.ts';
import { mcp } from './mcp.ts';
import { create } from './create.ts';
import { check } from './check.ts';
import { explain } from './explain.ts';

export const COMMANDS: readonly CliCommand[] = [
  discoverCommand,
  install,
  uninstall,
  update,
  trust,
  untrust,
  rebuild,
  list,
  search,
  serve,
  mcp,
  run,
  validate,
  firstRun,
  create,
  check,
  explain,
];
