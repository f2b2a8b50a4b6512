// Lint is mostly here to hold the process boundary: the folder a file lives in says
// which process runs it, and imports may only point the way that keeps that true.
//
// ESLint keeps one set of options per rule for a file: the last config object that matches it.
// So each object below restating `no-restricted-imports` carries its ring's whole list, and the
// test-support rule uses the typescript-eslint twin of the rule so it adds to the ring rules
// instead of replacing them. scripts/boundary-lint.test.ts proves each rule fires.
import globals from 'globals';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'node:*',
  'fs',
  'fs/*',
  'path',
  'os',
  'child_process',
  'crypto',
  'worker_threads',
  'http',
  'https',
  'net',
  'url',
  'util',
  'stream',
  'events',
  'module',
  'process',
  'buffer',
  'zlib',
  'tls',
  'dns',
  'readline',
  'assert',
  'v8',
  'vm',
];
const tests = ['**/*.test.ts', '**/*.test.tsx'];

const ELECTRON_MODULE = {
  regex: '^electron(/|$)',
  message: 'Only electron/main/ and electron/preload/ import Electron: everything else runs in plain Node too (web host, CLI, MCP, tests).',
};

const SHARED_RING = [
  { group: nodeBuiltins, message: 'shared/ is environment-neutral: pass I/O in as a parameter instead of importing Node.' },
  { group: ['electron', 'electron/*'], message: 'shared/ never imports Electron.' },
  { group: ['react', 'react/*', 'react-dom', 'react-dom/*'], message: 'shared/ never imports React.' },
  { group: ['**/electron/**', '**/renderer/**', '../electron/*', '../renderer/*'], message: 'shared/ may not depend on a process-specific folder.' },
];
const RENDERER_RING = [
  { group: nodeBuiltins, message: 'renderer/ runs in a page: ask the main process through the contract client.' },
  { group: ['electron', 'electron/*'], message: 'renderer/ never imports Electron; use the preload object through the contract client.' },
  { group: ['**/electron/**', '../electron/*'], message: 'renderer/ may not import Node-side code; use shared/ contracts.' },
];
const ELECTRON_RING = [
  { group: ['react', 'react/*', 'react-dom', 'react-dom/*'], message: 'electron/ is the main-process side; React belongs in renderer/.' },
  { group: ['**/renderer/**', '../renderer/*'], message: 'electron/ may not import renderer code.' },
];

// Layers inside shared/ (production files; tests may combine layers): protocol is the base every
// part agrees on; packs (validators) and contract (the service surface) build on it alone; the
// sandbox kernel builds on protocol and packs; workflow validation on those and the sandbox's source
// analysis. shared/testing/ may use any of them.
const sharedLayer = (folder, forbidden, why) => ({
  files: [`shared/${folder}/**/*.{ts,tsx}`],
  ignores: tests,
  rules: {
    // A layer's files sit at any depth inside it (shared/sandbox/kernel/…), so its imports of a
    // forbidden layer are ../, ../../ or ../../../ deep.
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...SHARED_RING,
          { group: forbidden.flatMap((f) => [1, 2, 3].flatMap((d) => [`${'../'.repeat(d)}${f}/*`, `${'../'.repeat(d)}${f}/**`])), message: why },
        ],
      },
    ],
  },
});

// The rules every piece of guest source keeps (shared/sandbox/guest/): the ones that catch a name
// the guest does not have or a slip the engine would only report at run time.
const GUEST_RULES = {
  '@typescript-eslint/no-unused-vars': 'off',
  'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
  'no-undef': 'error',
  'prefer-const': 'error',
  eqeqeq: 'error',
  'no-shadow-restricted-names': 'error',
  'no-var': 'error',
  'no-eval': 'error',
  'no-new-func': 'error',
  'no-redeclare': 'error',
  'no-shadow': 'error',
  'no-use-before-define': ['error', { functions: false, variables: false }],
};

// A web piece (shared/sandbox/guest/web/) is linted with a top-level return, and ESLint then
// ignores `/* exported … */` (its top level is a function scope, not the global one). This rule
// gives the comment its meaning back: each name it lists is declared at the piece's top level and
// counts as used (scripts/build-guest.mjs checks that later pieces take only what earlier ones export).
const exportedRule = {
  meta: { type: 'problem', schema: [], messages: { undeclared: "'{{name}}' is listed in /* exported */ but not declared at this piece's top level." } },
  create(context) {
    const { sourceCode } = context;
    return {
      Program(program) {
        const top = sourceCode.scopeManager.globalScope.childScopes.find((scope) => scope.block === program) ?? sourceCode.scopeManager.globalScope;
        for (const comment of sourceCode.getAllComments()) {
          const match = comment.type === 'Block' ? /^\s*exported\s([\s\S]*)$/.exec(comment.value) : null;
          if (match === null) continue;
          for (const name of match[1].split(/[\s,]+/).filter((n) => n !== '')) {
            if (top.set.has(name)) sourceCode.markVariableAsUsed(name, program);
            else context.report({ loc: comment.loc, messageId: 'undeclared', data: { name } });
          }
        }
      },
    };
  },
};

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
    rules: { 'no-restricted-imports': ['error', { patterns: SHARED_RING }] },
  },
  sharedLayer('protocol', ['contract', 'packs', 'sandbox', 'workflow', 'testing'], 'shared/protocol/ is the base layer: it imports nothing else from shared/.'),
  sharedLayer('packs', ['contract', 'sandbox', 'workflow', 'testing'], 'shared/packs/ imports shared/protocol/ only.'),
  sharedLayer('contract', ['packs', 'sandbox', 'workflow', 'testing'], 'shared/contract/ imports shared/protocol/ only.'),
  sharedLayer('sandbox', ['contract', 'workflow', 'testing'], 'shared/sandbox/ builds on shared/protocol/ and shared/packs/ only.'),
  sharedLayer(
    'workflow',
    ['contract', 'testing'],
    "shared/workflow/ (offline validation, CodeAct consent) builds on shared/protocol/, shared/packs/ and the sandbox's source analysis only.",
  ),
  {
    // The renderer is a page: it talks to main only through the contract client.
    files: ['renderer/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: RENDERER_RING }] },
  },
  {
    // The browser runner is the engine side of the page; screens use it, never the other way.
    files: ['renderer/runner/**/*.{ts,tsx}'],
    ignores: tests,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...RENDERER_RING,
            {
              group: ['../features/*', '../features/**', '../../features/*', '../../features/**'],
              message: 'renderer/runner/ may not import a feature: put what both need in runner/, ui/ or shared/.',
            },
          ],
        },
      ],
    },
  },
  {
    // Node-side logic never pulls in React, and only main/ and preload/ are Electron glue.
    files: ['electron/**/*.{ts,tsx,mjs}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [...ELECTRON_RING, ELECTRON_MODULE] }] },
  },
  {
    files: ['electron/main/**/*.{ts,tsx,mjs}', 'electron/preload/**/*.{ts,tsx,mjs}'],
    rules: { 'no-restricted-imports': ['error', { patterns: ELECTRON_RING }] },
  },
  {
    files: ['scripts/**/*.{ts,js,mjs}', 'e2e/**/*.{ts,js,mjs}', '*.{ts,js,mjs}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [ELECTRON_MODULE] }] },
  },
  {
    // Test support (fixture builders, harnesses, the local registry) lives in a testing/ folder per
    // ring; production code never imports it. Tests, testing/ itself and the parity page (a test
    // page built for Chromium, never shipped) may.
    files: ['shared/**/*.{ts,tsx}', 'electron/**/*.{ts,tsx,mjs}', 'renderer/**/*.{ts,tsx}'],
    ignores: [...tests, '**/testing/**', 'renderer/runner/parity/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/testing/*', '**/testing/**', './testing/*', '../testing/*', '../../testing/*'],
              message: 'Production code never imports test support (a testing/ folder).',
            },
          ],
        },
      ],
    },
  },
  {
    // Guest source (shared/sandbox/guest/*.js): scripts quickjs-ng compiles inside the sandbox, never
    // imported by Node or a page. Only what the guest has is defined: the standard built-ins,
    // quickjs-ng's DOMException, and the placeholders guest-prelude.ts fills before compiling.
    files: ['shared/sandbox/guest/**/*.js'],
    ignores: ['shared/sandbox/guest/web/**'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'script',
      globals: {
        ...globals.builtin,
        DOMException: 'readonly',
        ...Object.fromEntries(
          [
            '__HOST_CALL__',
            '__HOST_LOG__',
            '__HOST_CLOCK__',
            '__HOST_LIBRARY__',
            '__HOST_WASM__',
            '__HOST_WEB__',
            '__HOST_RANDOM__',
            '__WEB_LAZY__',
            '__WASM_MAX_PARAMS__',
            '__COPY_BYTES__',
            '__COPY_DEPTH__',
            '__WASM_GLOBAL__',
            '__PRELUDE_NAME__',
            '__LIBRARY_NAME__',
            '__JSON_DEPTH__',
          ].map((name) => [name, 'readonly']),
        ),
      },
    },
    rules: { ...GUEST_RULES, 'no-implicit-globals': ['error', { lexicalBindings: true }], strict: ['error', 'function'] },
  },
  {
    // The web parts' pieces (shared/sandbox/guest/web/*.js): each is a stretch of one part's body,
    // the function of (W, need) the host compiles once a run touches one of its globals, after packs
    // ran; so a piece may return at its top level (the last one returns the part's exports), sees
    // only the standard built-ins (a part uses what the core captured, in W), lists what it takes from
    // the part's scope and the pieces before it in /* global … */ and what it gives later pieces in
    // /* exported … */, and opens with 'use strict' (the build states it once for the part).
    files: ['shared/sandbox/guest/web/**/*.js'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'script',
      parserOptions: { ecmaFeatures: { globalReturn: true } },
      globals: { ...globals.builtin },
    },
    plugins: { guest: { rules: { exported: exportedRule } } },
    rules: {
      ...GUEST_RULES,
      'guest/exported': 'error',
      strict: ['error', 'global'],
      // A class used inside another's methods (URLSearchParams makes its Iterator) exists by the time they run.
      'no-use-before-define': ['error', { functions: false, variables: false, classes: false }],
    },
  },
);
