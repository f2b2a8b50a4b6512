// Which answers are lists, and what stands in for a row that cannot be shown (row-repair.ts is
// the mechanism; the dispatcher runs it for every face). Discovery already holds every pack to the
// bounds of these rows (shared/packs/answer-bounds.ts), so a stand-in here means a bug in the
// app: it is logged, and its sentence says so — but the rest of the list still answers.
//
// A stand-in keeps only what names the row (a specifier, a pack name and version) when that part
// is sound, and fails closed: a module stood in for is shown as skipped, so no face offers it.
// Rows with nothing honest to stand in with (an installed pack's scripts, a search hit, a
// workflow name) are left out. Lists in answers that are not lists of rows (a workflow's nodes)
// are never repaired: leaving out a node would change what a save writes.

import { z } from 'zod';
import { ErrorCodeSchema } from '../protocol/codes.ts';
import { LIMITS, shortenText } from '../protocol/limits.ts';
import { ValidationIssueSchema } from '../protocol/workflow.ts';
import type { MethodName } from './methods.ts';
import { InstalledPackSchema, UPDATE_CHECKS_MAX, UpdateCheckSchema } from './pack-schemas.ts';
import type { RowList } from './row-repair.ts';
import { ModuleSummarySchema, PackStatusSchema, PackWarningSchema, RECONCILE_LINES_MAX, ReconcileLineSchema, WorkflowNameSchema } from './schemas.ts';
import { PackSearchHitSchema, SEARCH_HITS_MAX } from './search-schemas.ts';

const BUG = 'This is a bug in the app; its log has the details.';
const because = (sentence: string, problem: string): string => shortenText(`${sentence} (${problem}). ${BUG}`, LIMITS.reasonChars);
const field = (row: unknown, key: string): unknown => (typeof row === 'object' && row !== null ? (row as Record<string, unknown>)[key] : undefined);

const ModuleNameSchema = ModuleSummarySchema.pick({ specifier: true, packName: true, packVersion: true, kind: true });

/** A module row that cannot be shown: shown as skipped, under its own name, with why. */
function moduleStandIn(row: unknown, problem: string): unknown {
  const named = ModuleNameSchema.safeParse(row);
  if (!named.success) return undefined;
  const hasSkill = field(row, 'hasSkill');
  return {
    ...named.data,
    status: 'skipped',
    code: 'internal',
    reason: because('This module could not be listed as it was discovered, so it is shown as skipped', problem),
    summary: `${named.data.specifier} (${named.data.kind})`,
    hasSkill: typeof hasSkill === 'boolean' ? hasSkill : false,
  };
}

const PackNameSchema = PackStatusSchema.pick({ name: true, version: true });

/** A pack row that cannot be shown: its name and version, its modules where they are sound, and why. */
function packStandIn(row: unknown, problem: string): unknown {
  const named = PackNameSchema.safeParse(row);
  if (!named.success) return undefined;
  const modules = PackStatusSchema.shape.modules.safeParse(field(row, 'modules'));
  return {
    ...named.data,
    status: 'rejected',
    code: 'internal',
    reason: because('This pack could not be listed as it was discovered', problem),
    warnings: [],
    modules: modules.success ? modules.data : [],
  };
}

/** A warning whose message is too long is shown shortened. */
function warningStandIn(row: unknown): unknown {
  const code = ErrorCodeSchema.safeParse(field(row, 'code'));
  const message = field(row, 'message');
  return code.success && typeof message === 'string' ? { code: code.data, message: shortenText(message, LIMITS.reasonChars) } : undefined;
}

const shortLine = (row: unknown): unknown => (typeof row === 'string' ? shortenText(row, LIMITS.reasonChars) : undefined);

const UpdateNameSchema = UpdateCheckSchema.pick({ name: true, installed: true, source: true });

/** An update check that cannot be shown is one that could not answer. */
function updateStandIn(row: unknown, problem: string): unknown {
  const named = UpdateNameSchema.safeParse(row);
  if (!named.success) return undefined;
  return {
    ...named.data,
    state: 'unavailable',
    removedModules: [],
    removedExports: [],
    message: because('The update check for this pack could not be shown', problem),
  };
}

/** A validation issue that cannot be shown keeps its node and severity, so an error still counts as one. */
function issueStandIn(row: unknown, problem: string): unknown {
  const nodeId = field(row, 'nodeId');
  const severity = z.enum(['error', 'warning']).safeParse(field(row, 'severity'));
  if (typeof nodeId !== 'string') return undefined;
  return {
    nodeId,
    severity: severity.success ? severity.data : 'error',
    code: 'internal',
    message: because('An issue with this node could not be shown', problem),
  };
}

export const MODULE_ROWS: RowList = { path: ['modules'], row: ModuleSummarySchema, standIn: moduleStandIn };

const WARNING_ROWS: RowList = {
  path: ['warnings'],
  row: PackWarningSchema,
  standIn: warningStandIn,
  max: LIMITS.warningsPerPack,
  overflow: (left) => ({ code: 'internal', message: `${left} more warnings were left out of this answer. ${BUG}` }),
};

const reconcileLines = (key: 'fixed' | 'missing'): RowList => ({
  path: ['reconcile', key],
  row: ReconcileLineSchema,
  standIn: shortLine,
  max: RECONCILE_LINES_MAX,
  overflow: (left) => `...and ${left} more, left out of this answer.`,
});

/** The lists of each method whose answer is a list of rows. */
export const ANSWER_LISTS = {
  'catalog.summaries': [MODULE_ROWS],
  'catalog.diagnostics': [
    { path: ['packs'], row: PackStatusSchema, standIn: packStandIn, lists: [MODULE_ROWS, WARNING_ROWS] },
    reconcileLines('fixed'),
    reconcileLines('missing'),
  ],
  'packs.list': [{ path: ['packs'], row: InstalledPackSchema }],
  'packs.details': [MODULE_ROWS],
  'packs.search': [{ path: ['hits'], row: PackSearchHitSchema, max: SEARCH_HITS_MAX }],
  'packs.updates': [{ path: ['packs'], row: UpdateCheckSchema, standIn: updateStandIn, max: UPDATE_CHECKS_MAX }],
  'code.validate': [{ path: ['issues'], row: ValidationIssueSchema, standIn: issueStandIn }],
  'workflows.list': [{ path: ['names'], row: WorkflowNameSchema }],
} as const satisfies Partial<Record<MethodName, readonly RowList[]>>;

/** The lists of `method`'s answer that are repaired row by row; none for an answer that is not a list. */
export function answerLists(method: MethodName): readonly RowList[] {
  return (ANSWER_LISTS as Partial<Record<MethodName, readonly RowList[]>>)[method] ?? [];
}
