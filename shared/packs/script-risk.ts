// Flags install scripts that fetch code from the network and run it. Such a script means the code
// the user reviews is not the code that runs: what executes is whatever the remote host serves at
// that moment. The consent dialog marks these; it never hides or rewrites the script itself.
// Pure and environment-neutral, so the dialog and the CLI can share it.

export interface ScriptRisk {
  /** A stable tag for tests and styling. */
  readonly kind: 'pipe-to-shell' | 'download-tool' | 'node-eval-network' | 'powershell-download';
  /** One sentence for the user. */
  readonly reason: string;
}

const DOWNLOADERS = /\b(?:curl|wget)\b/i;
const SHELLS = /\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b|\|\s*(?:node|python3?|perl|ruby|bash)\b/i;
const NODE_EVAL = /\bnode\s+(?:[^|;&]*\s)?(?:-e|--eval|-p|--print)\b/i;
const NETWORK_IN_CODE = /\bhttps?\b|\bfetch\s*\(|require\(\s*['"`](?:node:)?https?['"`]\s*\)/i;
const POWERSHELL_DOWNLOAD = /\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|DownloadString|DownloadFile)\b/i;

/** Why this script command downloads and runs remote code, or an empty list. */
export function scriptRisks(command: string): ScriptRisk[] {
  const risks: ScriptRisk[] = [];
  if (DOWNLOADERS.test(command) && SHELLS.test(command)) {
    risks.push({ kind: 'pipe-to-shell', reason: 'Downloads a script and runs it at once: what runs is whatever that server sends, not what you see here.' });
  } else if (DOWNLOADERS.test(command)) {
    risks.push({ kind: 'download-tool', reason: 'Downloads files from the network with curl or wget while it installs.' });
  }
  if (NODE_EVAL.test(command) && NETWORK_IN_CODE.test(command)) {
    risks.push({ kind: 'node-eval-network', reason: 'Runs inline Node.js code that reaches the network: it can fetch and run code that is not in the package.' });
  }
  if (POWERSHELL_DOWNLOAD.test(command)) {
    risks.push({ kind: 'powershell-download', reason: 'Downloads from the network with PowerShell while it installs.' });
  }
  return risks;
}
