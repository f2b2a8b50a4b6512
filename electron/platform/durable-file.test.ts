// Durable writes and recovering reads on a real file system: a write replaces the file whole and
// keeps the previous good generation, a damaged file never overwrites a good backup, and a read
// restores a damaged file from its backup while keeping the damaged copy.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileDurably, isTempOf, keepDamagedCopy, tempNameFor, tempWriterOf, writeFileDurably } from './durable-file.ts';
import { parseJsonText, readRecovering } from './recovering-read.ts';

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sp-durable-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const isJson = (text: string): boolean => parseJsonText(text, (json) => ({ ok: true, value: json })).ok;
const parse = (text: string) =>
  parseJsonText(text, (json) => (typeof json === 'object' && json !== null ? { ok: true, value: json } : { ok: false, reason: 'not an object' }));

describe('durable writes', () => {
  it('replaces the file whole, keeps the previous good generation as .bak, and leaves no temp file', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'data.json');
    await writeFileDurably(file, '{"n":1}', { backup: isJson });
    expect(readdirSync(dir)).toEqual(['data.json']);
    await writeFileDurably(file, '{"n":2}', { backup: isJson });
    expect(readdirSync(dir).sort()).toEqual(['data.json', 'data.json.bak']);
    expect([readFileSync(file, 'utf8'), readFileSync(`${file}.bak`, 'utf8')]).toEqual(['{"n":2}', '{"n":1}']);
  });

  it('never lets a damaged file replace the good backup it would be restored from', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'data.json');
    await writeFileDurably(file, '{"n":1}', { backup: isJson });
    await writeFileDurably(file, '{"n":2}', { backup: isJson });
    writeFileSync(file, '{"n":');
    await writeFileDurably(file, '{"n":3}', { backup: isJson });
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe('{"n":1}');
  });

  it('creates a file only when it does not exist', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'package.json');
    expect(await createFileDurably(file, 'first')).toBe(true);
    expect(await createFileDurably(file, 'second')).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('first');
    expect(readdirSync(dir)).toEqual(['package.json']);
  });

  it('names its temp files so leftovers can be found, and keeps damaged copies beside the file', async () => {
    expect(isTempOf('sandbox-packs-ledger.json', 'sandbox-packs-ledger.json.123.abcd.tmp')).toBe(true);
    expect(isTempOf('sandbox-packs-ledger.json', 'sandbox-packs-ledger.json.bak.123.abcd.tmp')).toBe(true);
    expect(isTempOf('sandbox-packs-ledger.json', 'other.json.123.abcd.tmp')).toBe(false);
    expect(tempWriterOf('package.json', tempNameFor('package.json'))).toBe(process.pid);
    expect(tempWriterOf('package.json', 'package.json.bak.4242.abcd.tmp')).toBe(4242);
    expect(tempWriterOf('package.json', 'package.json.x.tmp')).toBeUndefined();
    expect(tempWriterOf('package.json', 'other.json.4242.abcd.tmp')).toBeUndefined();
    const dir = tempDir();
    const file = path.join(dir, 'data.json');
    writeFileSync(file, 'garbage');
    const aside = await keepDamagedCopy(file);
    expect(path.basename(aside)).toMatch(/^data\.json\.damaged-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/);
    expect([readFileSync(file, 'utf8'), readFileSync(aside, 'utf8')]).toEqual(['garbage', 'garbage']);
  });
});

describe('recovering reads', () => {
  it('restores a damaged file from its backup and keeps the damaged copy; reports one without a backup untouched', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'data.json');
    await writeFileDurably(file, '{"n":1}', { backup: isJson });
    await writeFileDurably(file, '{"n":2}', { backup: isJson });
    expect(await readRecovering(file, 'The data file', parse)).toEqual({ state: 'ok', value: { n: 2 } });
    writeFileSync(file, '{"n":2');
    const restored = await readRecovering(file, 'The data file', parse);
    expect(restored).toMatchObject({ state: 'restored', value: { n: 1 }, reason: 'not valid JSON (cut short or overwritten)' });
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}');
    if (restored.state === 'restored') expect(readFileSync(restored.aside, 'utf8')).toBe('{"n":2');

    rmSync(`${file}.bak`);
    writeFileSync(file, '7');
    expect(await readRecovering(file, 'The data file', parse)).toEqual({ state: 'damaged', reason: 'not an object', garbled: false });
    expect(readFileSync(file, 'utf8')).toBe('7');
    expect(await readRecovering(path.join(dir, 'none.json'), 'The data file', parse)).toEqual({ state: 'missing' });
  });
});
