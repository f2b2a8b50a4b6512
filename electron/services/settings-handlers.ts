// settings.* over the settings store. The registry setting is what the installer uses for the
// next operation; the session allowlist is what an agent session may mount (spec: CodeAct).

import type { Handler } from '../../shared/contract/dispatcher.ts';
import type { SettingsStore } from './settings-store.ts';

export function settingsHandlers(store: SettingsStore): {
  'settings.get': Handler<'settings.get'>;
  'settings.setRegistry': Handler<'settings.setRegistry'>;
  'settings.setSessionAllowlist': Handler<'settings.setSessionAllowlist'>;
} {
  return {
    'settings.get': () => store.get(),
    'settings.setRegistry': ({ registry }) => store.update({ registry }),
    'settings.setSessionAllowlist': ({ sessionAllowlist }) => store.update({ sessionAllowlist: [...new Set(sessionAllowlist)] }),
  };
}
