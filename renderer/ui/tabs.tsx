// An accessible tab list (WAI-ARIA tabs pattern): arrow keys move between tabs, the active tab is
// the only one in the Tab order, and each tab names the panel it controls.

import { useRef, type KeyboardEvent } from 'react';

export interface TabsProps<T extends string> {
  readonly label: string;
  readonly tabs: readonly { id: T; label: string }[];
  readonly active: T;
  readonly onChange: (id: T) => void;
  readonly idPrefix: string;
}

export function Tabs<T extends string>({ label, tabs, active, onChange, idPrefix }: TabsProps<T>) {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const onKeyDown = (event: KeyboardEvent, index: number) => {
    const delta = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    let next = index + delta;
    if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = tabs.length - 1;
    else if (delta === 0) return;
    event.preventDefault();
    next = (next + tabs.length) % tabs.length;
    const tab = tabs[next];
    if (tab === undefined) return;
    onChange(tab.id);
    refs.current[next]?.focus();
  };
  return (
    <div role="tablist" aria-label={label} className="tabs">
      {tabs.map((tab, i) => (
        <button
          key={tab.id}
          ref={(el) => {
            refs.current[i] = el;
          }}
          type="button"
          role="tab"
          id={`${idPrefix}-tab-${tab.id}`}
          aria-selected={tab.id === active}
          aria-controls={`${idPrefix}-panel-${tab.id}`}
          tabIndex={tab.id === active ? 0 : -1}
          className={tab.id === active ? 'tab tab-active' : 'tab'}
          onClick={() => onChange(tab.id)}
          onKeyDown={(e) => onKeyDown(e, i)}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}

export function TabPanel({ idPrefix, id, children }: { idPrefix: string; id: string; children: React.ReactNode }) {
  return (
    <div role="tabpanel" id={`${idPrefix}-panel-${id}`} aria-labelledby={`${idPrefix}-tab-${id}`} className="tab-panel">
      {children}
    </div>
  );
}
