// The workflow being edited, kept in the UI store so switching screens does not lose unsaved
// work, and in localStorage so a reload (or a crash of the page) does not either. It is a draft:
// what is saved lives in main and is read back through workflows.load. A removed node is kept
// until the next removal so it can be put back (Undo), and the page asks before unloading while
// the draft has unsaved changes.

import { z } from 'zod';
import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import { CodeNodeSchema, WorkflowSchema, type CodeNode, type Workflow } from '../../shared/protocol/workflow.ts';

export interface RemovedNode {
  readonly node: CodeNode;
  readonly index: number;
}

export interface DraftState {
  readonly name: string;
  readonly workflow: Workflow;
  readonly dirty: boolean;
  /** Bumped when another workflow replaces the draft, so node editors start fresh. */
  readonly generation: number;
  /** The last node removed, until it is put back or another is removed. */
  readonly removed: RemovedNode | undefined;
  setName(name: string): void;
  load(name: string, workflow: Workflow): void;
  reset(): void;
  updateNode(id: string, change: (node: CodeNode) => CodeNode): void;
  addNode(): void;
  removeNode(id: string): void;
  undoRemove(): void;
  /** The workflow as saved (declarations stamped); keeps the node editors as they are. */
  markSaved(workflow: Workflow): void;
}

export const STARTER_CODE = '// Import the modules you select in the package picker, then return a value.\nreturn 1 + 1;\n';
export const DRAFT_STORAGE_KEY = 'sandbox-packs.workflow-draft';
/** This browser kept no draft when the page loaded (read before the store can write one): a first visit. */
export const NO_STORED_DRAFT = typeof localStorage !== 'undefined' && localStorage.getItem(DRAFT_STORAGE_KEY) === null;

function nextId(workflow: Workflow): string {
  let n = workflow.nodes.length + 1;
  while (workflow.nodes.some((node) => node.id === `node-${n}`)) n++;
  return `node-${n}`;
}

const emptyWorkflow = (): Workflow => ({ nodes: [{ id: 'node-1', type: 'code', code: STARTER_CODE, packages: [] }] });

/** What is kept across reloads; read back through this schema (localStorage is outside data like any other). */
const StoredDraftSchema = z.object({
  name: z.string().max(200),
  workflow: WorkflowSchema,
  dirty: z.boolean(),
  removed: z.object({ node: CodeNodeSchema, index: z.number().int().min(0) }).optional(),
});

export const useDraftStore = create<DraftState>()(
  persist(
    (set) => ({
      name: '',
      workflow: emptyWorkflow(),
      dirty: false,
      generation: 0,
      removed: undefined,
      setName: (name) => set({ name, dirty: true }),
      load: (name, workflow) => set((s) => ({ name, workflow, dirty: false, removed: undefined, generation: s.generation + 1 })),
      reset: () => set((s) => ({ name: '', workflow: emptyWorkflow(), dirty: false, removed: undefined, generation: s.generation + 1 })),
      updateNode: (id, change) => set((s) => ({ workflow: { nodes: s.workflow.nodes.map((n) => (n.id === id ? change(n) : n)) }, dirty: true })),
      addNode: () =>
        set((s) => ({ workflow: { nodes: [...s.workflow.nodes, { id: nextId(s.workflow), type: 'code', code: STARTER_CODE, packages: [] }] }, dirty: true })),
      removeNode: (id) =>
        set((s) => {
          const index = s.workflow.nodes.findIndex((n) => n.id === id);
          const node = s.workflow.nodes[index];
          if (node === undefined) return {};
          return { workflow: { nodes: s.workflow.nodes.filter((n) => n.id !== id) }, dirty: true, removed: { node, index } };
        }),
      undoRemove: () =>
        set((s) => {
          if (s.removed === undefined || s.workflow.nodes.some((n) => n.id === s.removed?.node.id)) return { removed: undefined };
          const nodes = [...s.workflow.nodes];
          nodes.splice(Math.min(s.removed.index, nodes.length), 0, s.removed.node);
          return { workflow: { nodes }, dirty: true, removed: undefined };
        }),
      markSaved: (workflow) => set({ workflow, dirty: false }),
    }),
    {
      name: DRAFT_STORAGE_KEY,
      storage: createJSONStorage(() => localStorage),
      partialize: (s) => ({ name: s.name, workflow: s.workflow, dirty: s.dirty, ...(s.removed ? { removed: s.removed } : {}) }),
      // A stored draft that does not parse (an older format, a hand edit) is dropped, not trusted.
      merge: (stored, current) => {
        const parsed = StoredDraftSchema.safeParse(stored);
        return parsed.success ? { ...current, ...parsed.data, generation: current.generation + 1 } : current;
      },
    },
  ),
);

// While the draft has unsaved changes, closing or reloading the page asks first (the draft is kept
// in localStorage either way, but a user who closes the tab may not come back to this browser).
function onBeforeUnload(event: BeforeUnloadEvent): void {
  event.preventDefault();
  event.returnValue = '';
}
if (typeof window !== 'undefined') {
  let guarded = false;
  const guard = (dirty: boolean) => {
    if (dirty === guarded) return;
    guarded = dirty;
    if (dirty) window.addEventListener('beforeunload', onBeforeUnload);
    else window.removeEventListener('beforeunload', onBeforeUnload);
  };
  guard(useDraftStore.getState().dirty);
  useDraftStore.subscribe((s) => guard(s.dirty));
}
