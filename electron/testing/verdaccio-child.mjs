// Runs Verdaccio in its own process for the test/bench harness (verdaccio.ts). A child process
// keeps the registry's globals, logger and sockets out of the test runner, and lets the harness
// end it by pid. It listens on 127.0.0.1 with a port the OS picks, reports that port as one JSON
// line on stdout, and exits when its stdin closes, so a parent that dies never leaves it behind.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { runServer } = require('verdaccio');

const configPath = process.argv[2];
if (!configPath) {
  process.stderr.write('usage: verdaccio-child.mjs CONFIG\n');
  process.exit(2);
}
const server = await runServer(configPath);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
});
const stop = () => {
  server.closeAllConnections?.();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
};
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
