export * from './storage.ts';
export { createDiskStorage } from './disk-storage.ts';
