// The workflow being edited, kept in the UI store so switching screens does not lose unsaved
// work. It is a draft: what is saved lives in main and is read back through workflows.load.

import { create } from 'zustand';
import type { CodeNode, Workflow } from '../../shared/protocol/workflow.ts';

export interface DraftState {
  readonly name: string;
  readonly workflow: Workflow;
  readonly dirty: boolean;
  /** Bumped when another workflow replaces the draft, so node editors start fresh. */
  readonly generation: number;
  setName(name: string): void;
  load(name: string, workflow: Workflow): void;
  reset(): void;
  updateNode(id: string, change: (node: CodeNode) => CodeNode): void;
  addNode(): void;
  removeNode(id: string): void;
  /** The workflow as saved (declarations stamped); keeps the node editors as they are. */
  markSaved(workflow: Workflow): void;
}

export const STARTER_CODE = '// Import the modules you select in the package picker, then return a value.\nreturn 1 + 1;\n';

function nextId(workflow: Workflow): string {
  let n = workflow.nodes.length + 1;
  while (workflow.nodes.some((node) => node.id === `node-${n}`)) n++;
  return `node-${n}`;
}

const emptyWorkflow = (): Workflow => ({ nodes: [{ id: 'node-1', type: 'code', code: STARTER_CODE, packages: [] }] });

export const useDraftStore = create<DraftState>((set) => ({
  name: '',
  workflow: emptyWorkflow(),
  dirty: false,
  generation: 0,
  setName: (name) => set({ name, dirty: true }),
  load: (name, workflow) => set((s) => ({ name, workflow, dirty: false, generation: s.generation + 1 })),
  reset: () => set((s) => ({ name: '', workflow: emptyWorkflow(), dirty: false, generation: s.generation + 1 })),
  updateNode: (id, change) => set((s) => ({ workflow: { nodes: s.workflow.nodes.map((n) => (n.id === id ? change(n) : n)) }, dirty: true })),
  addNode: () => set((s) => ({ workflow: { nodes: [...s.workflow.nodes, { id: nextId(s.workflow), type: 'code', code: STARTER_CODE, packages: [] }] }, dirty: true })),
  removeNode: (id) => set((s) => ({ workflow: { nodes: s.workflow.nodes.filter((n) => n.id !== id) }, dirty: true })),
  markSaved: (workflow) => set({ workflow, dirty: false }),
}));
