// Lint is mostly here to hold the process boundary: the folder a file lives in says
// which process runs it, and imports may only point the way that keeps that true.
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'fs/*', 'path', 'os', 'child_process', 'crypto', 'worker_threads', 'http', 'https', 'net', 'url', 'util', 'stream', 'events', 'module', 'process', 'buffer', 'zlib', 'tls', 'dns', 'readline', 'assert', 'v8', 'vm'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'out/**', 'fixtures/**', 'packs/**', 'test-results/**', 'playwright-report/**', 'e2e/artifacts/**'] },
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      'no-debugger': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // shared/ runs in Node, in the Electron renderer and in a plain browser.
    files: ['shared/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: nodeBuiltins, message: 'shared/ is environment-neutral: pass I/O in as a parameter instead of importing Node.' },
          { group: ['electron', 'electron/*'], message: 'shared/ never imports Electron.' },
          { group: ['react', 'react/*', 'react-dom', 'react-dom/*'], message: 'shared/ never imports React.' },
          { group: ['**/electron/**', '**/renderer/**', '../electron/*', '../renderer/*'], message: 'shared/ may not depend on a process-specific folder.' },
        ],
      }],
    },
  },
  {
    // The renderer is a page: it talks to main only through the contract client.
    files: ['renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: nodeBuiltins, message: 'renderer/ runs in a page: ask the main process through the contract client.' },
          { group: ['electron', 'electron/*'], message: 'renderer/ never imports Electron; use the preload object through the contract client.' },
          { group: ['**/electron/**', '../electron/*'], message: 'renderer/ may not import Node-side code; use shared/ contracts.' },
        ],
      }],
    },
  },
  {
    // Node-side logic never pulls in React.
    files: ['electron/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['react', 'react/*', 'react-dom', 'react-dom/*'], message: 'electron/ is the main-process side; React belongs in renderer/.' },
          { group: ['**/renderer/**', '../renderer/*'], message: 'electron/ may not import renderer code.' },
        ],
      }],
    },
  },
);
