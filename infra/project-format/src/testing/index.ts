// Test helpers for packages that read projects: real files in a temporary folder.
export { writeProject } from './write-project';
export type { Files } from './write-project';
