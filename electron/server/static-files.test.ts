// The page's own CSP (the meta tag, which is what the Electron window's file:// page gets) and
// the header the web host sends must be the same policy, so the two faces cannot drift apart.
// Also the URL-path rule that keeps static serving inside the build directory.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, staticRelativePath } from './static-files.ts';
import { REPO_ROOT } from '../testing/test-support.ts';

describe('content security policy', () => {
  it('index.html carries the header policy (minus frame-ancestors, which a meta tag cannot set)', () => {
    const html = readFileSync(path.join(REPO_ROOT, 'renderer/index.html'), 'utf8');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
    const header = CONTENT_SECURITY_POLICY.split('; ').filter((d) => !d.startsWith('frame-ancestors'));
    expect(meta?.split('; ')).toEqual(header);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-|\*|https?:/);
  });
});

describe('staticRelativePath', () => {
  it('maps plain paths and refuses anything that could leave the build directory', () => {
    expect(staticRelativePath('/')).toBe('index.html');
    expect(staticRelativePath('/assets/index-abc.js')).toBe('assets/index-abc.js');
    for (const bad of ['/..', '/a/../b', '/%2e%2e/x', '/a%2f..%2f..%2fb', '/.env', '/a//b', '/a\\b', '/%00', '/%E0%A4%A', 'relative']) {
      expect(staticRelativePath(bad), bad).toBeUndefined();
    }
  });
});
