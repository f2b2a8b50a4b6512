// Test support: how often a text occurs in an engine's linear memory, byte for byte. The supply
// tests read memory directly to show what a run left behind (Buffer's native search keeps a scan
// of 16 MB to milliseconds).

export function occurrences(memory: WebAssembly.Memory, text: string): number {
  const bytes = Buffer.from(memory.buffer);
  const needle = Buffer.from(text);
  let count = 0;
  for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + 1)) count++;
  return count;
}
