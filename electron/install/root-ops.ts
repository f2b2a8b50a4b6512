// Steps several installer operations share: npm calls with the root's fixed settings, the
// script policy kept in the root's package.json, failure mapping from npm's output to our codes,
// and the per-operation context (root, registry, progress, lock).

import type { ChildProcess } from 'node:child_process';
import type { InstallStage } from '../../shared/contract/events.ts';
import { fail } from '../../shared/protocol/result.ts';
import { NO_SCRIPTS, npmBaseArgs } from './npm-root.ts';
import { npmErrorSummary, runNpm, type NpmRun } from './npm-runner.ts';
import type { InstallFailure } from './install-codes.ts';

/** Every stage but `failed`, which the handlers report when the call itself fails. */
export type ProgressStage = Exclude<InstallStage, 'failed'>;
export interface ProgressEvent {
  readonly stage: ProgressStage;
  readonly message: string;
}
export type ProgressListener = (event: ProgressEvent) => void;

export interface OpContext {
  readonly root: string;
  readonly registry: string;
  readonly progress: ProgressListener;
  readonly onNpmSpawn?: (child: ChildProcess) => void;
  /** The caller's Cancel: stops the npm run in progress (its run answers `cancelled`). */
  readonly signal?: AbortSignal;
  /** npm's --fetch-timeout (npm-root.ts DEFAULT_FETCH_TIMEOUT_MS when absent). */
  readonly fetchTimeoutMs?: number;
}

export function npm(ctx: OpContext, args: readonly string[]): Promise<NpmRun> {
  return runNpm([...args, ...npmBaseArgs(ctx.root, ctx.registry, ctx.fetchTimeoutMs)], {
    cwd: ctx.root,
    ...(ctx.onNpmSpawn ? { onSpawn: ctx.onNpmSpawn } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
}

/** The answer of an operation the user stopped; locked-run.ts then rolls back what it changed. */
export function cancelled(what: string): InstallFailure {
  return fail('install-cancelled', `Stopped ${what} at your request.`);
}

/** `npm install` with scripts off. No spec: restore the tree from the lockfile. */
export function npmInstall(ctx: OpContext, specs: readonly string[]): Promise<NpmRun> {
  return npm(ctx, ['install', ...NO_SCRIPTS, ...specs]);
}

export function npmUninstall(ctx: OpContext, names: readonly string[]): Promise<NpmRun> {
  return npm(ctx, ['uninstall', ...NO_SCRIPTS, ...names]);
}

/**
 * npm's own error lines, one per line and in order, for a failure the user must read to act on
 * (a failed install script): the cause usually comes after npm's path/command preamble, so the
 * one-line summary cuts it off. Log-file pointers and stack frames are dropped.
 */
export function npmErrorLines(run: NpmRun, maxLines = 40, maxChars = 3000): string {
  if (run.failure) return run.failure.message;
  const lines = `${run.stderr}\n${run.stdout}`
    .split('\n')
    .map((l) => l.replace(/^npm (?:error|ERR!)\s?/, '').trimEnd())
    .filter(
      (l) =>
        l.trim() !== '' && !/^A complete log of this run/.test(l) && !/^\s*at /.test(l) && !/debug-0\.log$/.test(l) && !/^npm (?:warn|WARN|notice)\b/.test(l),
    );
  const text = lines.slice(0, maxLines).join('\n');
  if (text) return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
  return npmErrorSummary(run);
}

/** Map a failed npm run to a code a user can act on. `registry` lets a 404 name the registry it came from. */
export function npmFailure(run: NpmRun, what: string, lookup?: { registry: string; spec: string }): InstallFailure {
  if (run.failure) return run.failure;
  if (run.cancelled) return cancelled(what);
  const text = `${run.stderr}\n${run.stdout}`;
  const summary = npmErrorSummary(run);
  if (/\bENOSPC\b|\bEDQUOT\b|no space left on device/i.test(text)) {
    return fail('disk-full', `The disk is full: npm ran out of space while ${what} (${summary}). Free some space, then try again.`);
  }
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|ERR_SOCKET_TIMEOUT|network timeout at|network request to .* failed/i.test(text)) {
    return fail(
      'registry-unreachable',
      `The package registry could not be reached while ${what}; check the network connection and the registry address, then try again. npm said: ${summary}`,
    );
  }
  if (/EINTEGRITY/.test(text))
    return fail('integrity-mismatch', `The registry served an artifact whose integrity does not match the lockfile while ${what}: ${summary}`);
  if (/E404|404 Not Found/.test(text)) {
    const where = lookup ? `the registry ${lookup.registry}` : 'the registry';
    return fail(
      'not-found',
      `The package ${lookup?.spec ?? ''}${lookup ? ' ' : ''}does not exist on ${where} (npm answered 404 Not Found while ${what}). Check the name, or the registry in Agent & settings.`,
    );
  }
  if (/ETARGET|No matching version/.test(text)) return fail('install-failed', `No version matches while ${what}: ${summary}`);
  return fail('install-failed', `npm failed while ${what}: ${summary}`);
}

// The allowScripts policy lives in script-policy.ts (npm's key forms); re-exported for the callers here.
export { syncScriptPolicy } from './script-policy.ts';
