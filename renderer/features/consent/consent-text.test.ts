import { describe, expect, it } from 'vitest';
import * as consent from './consent-text.ts';

describe('consent wording', () => {
  it("says importing means trusting with the node's capabilities, in the spec's words", () => {
    expect(consent.IMPORT_CONSENT).toBe(
      "Importing a module means trusting it with that node's sandbox capabilities: its network access, its workspace, its secrets.",
    );
    expect(consent.SANDBOX_ONLY_CONSENT.startsWith("This pack runs inside your workflows with the node's capabilities.")).toBe(true);
  });

  it("says what an isolated module can do in the issue's words, with the specifier shown safely", () => {
    expect(consent.isolatedConsent('@acme/sandbox-yaml')).toBe(
      "@acme/sandbox-yaml runs isolated: it cannot reach this node's network, workspace or secrets, and sees only the values passed to it.",
    );
    expect(consent.isolatedConsent('@a/\u202Eb')).toMatch(/^@a\/\\u202Eb runs isolated: /);
  });

  it('never tells the user that no trust is needed', () => {
    const texts = Object.values(consent).flatMap((value) =>
      typeof value === 'string'
        ? [value]
        : typeof value === 'function'
          ? [String((value as (...a: unknown[]) => string)('p', '1.0.0', 2))]
          : Object.values(value as object),
    );
    for (const text of texts) {
      expect(text).not.toMatch(/no trust|trust[- ]free|without trust|safe to (use|install)|harmless/i);
    }
  });

  it('names the count of scripts the confirmation covers', () => {
    expect(consent.trustConfirmation('@a/p', '1.0.0', 2)).toBe(
      'Trust @a/p@1.0.0 and run the 2 install scripts listed above on this computer, against the files already installed? Its host code then runs with your permissions.',
    );
    expect(consent.trustConfirmation('p', '2.0.0', 0)).toContain('run no install scripts');
  });

  it('shows a bidi override in the version the confirmation names as \\u202E, not applied', () => {
    expect(consent.trustConfirmation('p', '1.0.0-\u202Ecod.exe', 1)).toMatch(/^Trust p@1\.0\.0-\\u202Ecod\.exe and run the install script listed above/);
  });

  it('derives one trust state from the ledger row: a trusted pack whose setup did not finish is trust-failed, never "trusted"', () => {
    expect(consent.trustState({ installMode: 'sandbox-only', trusted: false, status: 'active' })).toBe('sandbox-only');
    expect(consent.trustState({ installMode: 'register', trusted: false, status: 'needs-trust' })).toBe('needs-trust');
    expect(consent.trustState({ installMode: 'hybrid', trusted: true, status: 'active' })).toBe('trusted-and-built');
    expect(consent.trustState({ installMode: 'register', trusted: true, status: 'needs-rebuild' })).toBe('trust-failed');
    expect(consent.trustStateLabel({ installMode: 'register', trusted: true, status: 'needs-rebuild' })).toBe('setup failed · inactive');
    expect(consent.trustStateLabel({ installMode: 'sandbox-only', trusted: false, status: 'active' })).toBe('sandbox-only · active');
  });

  it('leads with what trusting lets the pack do, including the register entry and the allowlist change', () => {
    expect(consent.TRUST_CAN_RUN_OUTSIDE).toMatch(/^Run its code on your computer with your permissions, outside the sandbox/);
    expect(consent.trustCanRunRegister('register.js')).toBe('Run its host code entry register.js each time the app loads packs.');
    expect(consent.trustCanRunScripts(2)).toBe('Run the 2 install scripts below now, as its setup.');
    expect(consent.TRUST_CHANGES_ALLOWLIST).toContain("the agent's default package allowlist is the modules of trusted packs");
  });
});
