export * from './dev-key-file';
export * from './secret-key';
export * from './secret-sealer';
