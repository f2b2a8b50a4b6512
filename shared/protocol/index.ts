// Re-exports of the protocol: the data every process agrees on.
export * from './limits.ts';
export * from './codes.ts';
export * from './result.ts';
export * from './parse.ts';
export * from './manifest.ts';
export * from './declaration.ts';
export * from './catalog.ts';
