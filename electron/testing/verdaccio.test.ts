// The registry harness itself: it serves what was published, a swapped tarball is served as-is
// (that is what the installer's refetch test relies on), and stop() leaves no process or temp dir.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { integrityMatches } from '../install/refetch.ts';
import { startRegistry } from './verdaccio.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/registry-packs/', import.meta.url));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startRegistry', () => {
  it('publishes, serves a replaced tarball byte for byte, and stops without leftovers', async () => {
    const registry = await startRegistry({ uplink: false });
    let stopped = false;
    try {
      expect(registry.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      await registry.publish(path.join(FIXTURES, 'register-pack-1.0.0'));
      const meta = (await (await fetch(`${registry.url}@sp-fixture%2fregister-pack`)).json()) as {
        versions: Record<string, { dist: { tarball: string; integrity: string } }>;
      };
      const dist = meta.versions['1.0.0']?.dist;
      expect(dist).toBeDefined();
      const original = new Uint8Array(await (await fetch(dist!.tarball)).arrayBuffer());
      expect(integrityMatches(original, dist!.integrity)).toBe(true);

      await registry.replaceTarball('@sp-fixture/register-pack', '1.0.0', path.join(FIXTURES, 'register-pack-1.0.0-tampered'));
      const swapped = new Uint8Array(await (await fetch(dist!.tarball)).arrayBuffer());
      expect(integrityMatches(swapped, dist!.integrity)).toBe(false);

      const storage = registry.storageDir;
      const pid = registry.pid;
      await registry.stop();
      stopped = true;
      expect(alive(pid)).toBe(false);
      expect(existsSync(storage)).toBe(false);
    } finally {
      if (!stopped) await registry.stop();
    }
  });
});
