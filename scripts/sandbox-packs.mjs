#!/usr/bin/env node
// The `sandbox-packs` command. In a development checkout the CLI's TypeScript runs through tsx,
// so `npx sandbox-packs …` works straight after `npm install`; the packaged app ships a bundle.
// A checkout whose dependencies are missing gets a sentence, not a module-loader stack trace.

let runAsProcess;
try {
  const { register } = await import('tsx/esm/api');
  register();
  ({ runAsProcess } = await import('../electron/cli/main.ts'));
} catch (error) {
  process.stderr.write(
    `sandbox-packs could not load its sources (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); run \`npm install\` in the checkout, check that the sources compile (\`npm run typecheck\`), and try again.\n`,
  );
  process.exit(1);
}
await runAsProcess(process.argv.slice(2));
