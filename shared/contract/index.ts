// Re-exports of the service contract: methods as data, events, the client interface, the dispatcher.
export * from './result-schema.ts';
export * from './schemas.ts';
export * from './pack-schemas.ts';
export * from './methods.ts';
export * from './events.ts';
export * from './client.ts';
export * from './dispatcher.ts';
export * from './ipc-channels.ts';
