// The desktop app's secret store: the same owner-only file store as the CLI's, with each value
// sealed by Electron's safeStorage (the OS keychain: Keychain on macOS, DPAPI on Windows, the
// Secret Service or kwallet on Linux) before it is written, so the file alone does not reveal a
// value. Where the OS offers no encryption the app does not fall back to plain text: saving fails.

import { safeStorage } from 'electron';
import { createFileSecretStore, type SecretSealer, type SecretStore } from '../services/secret-store.ts';

export function createSafeStorageSecretStore(dataDir: string): SecretStore {
  const sealer: SecretSealer = {
    storage: 'os-keychain',
    fileName: 'secrets.sealed.json',
    seal(value) {
      if (!safeStorage.isEncryptionAvailable()) throw new Error('safeStorage: encryption is not available on this system');
      return safeStorage.encryptString(value).toString('base64');
    },
    unseal: (sealed) => safeStorage.decryptString(Buffer.from(sealed, 'base64')),
  };
  return createFileSecretStore(dataDir, sealer);
}
