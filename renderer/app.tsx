// The app shell: a skip link, the header with the screens as a labelled navigation, and the
// current screen. Screen choice is UI state (zustand); every screen reads main via react-query.

import { useUiStore, type View } from './state/ui-store.ts';
import { AgentSettings } from './features/agent-settings/agent-settings.tsx';
import { WorkflowEditor } from './features/code-node/workflow-editor.tsx';
import { DiagnosticsView } from './features/diagnostics/diagnostics-view.tsx';
import { FirstRunStatus } from './features/first-run/first-run-status.tsx';
import { PackageManager } from './features/package-manager/package-manager.tsx';
import { SecretsView } from './features/secrets/secrets-view.tsx';

const VIEWS: { id: View; label: string }[] = [
  { id: 'packages', label: 'Packages' },
  { id: 'workflows', label: 'Workflows' },
  { id: 'secrets', label: 'Secrets' },
  { id: 'agent', label: 'Agent & settings' },
  { id: 'diagnostics', label: 'Diagnostics' },
];

export function App() {
  const view = useUiStore((s) => s.view);
  const setView = useUiStore((s) => s.setView);
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <h1>Sandbox Packs</h1>
        <nav aria-label="Screens">
          <ul>
            {VIEWS.map((v) => (
              <li key={v.id}>
                <button
                  type="button"
                  className={v.id === view ? 'nav nav-active' : 'nav'}
                  aria-current={v.id === view ? 'page' : undefined}
                  onClick={() => setView(v.id)}
                >
                  {v.label}
                </button>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <FirstRunStatus />
      <main id="main" tabIndex={-1}>
        {view === 'packages' && <PackageManager />}
        {view === 'workflows' && <WorkflowEditor />}
        {view === 'agent' && <AgentSettings />}
        {view === 'diagnostics' && <DiagnosticsView />}
        {view === 'secrets' && <SecretsView />}
      </main>
    </>
  );
}
