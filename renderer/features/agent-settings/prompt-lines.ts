// The CodeAct session allowlist and the package lines a prompt would advertise. The rule lives in
// shared/contract/session-allowlist.ts so the MCP server advertises exactly what this screen shows.

export { effectiveAllowlist, promptLines } from '../../../shared/contract/session-allowlist.ts';
