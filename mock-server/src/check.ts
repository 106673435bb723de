// The one check of a project, without the server: what `restbus-mock --check` runs, for `rest-tool validate` too.
// It loads the project's implementation modules, but nothing of the HTTP app.
export { checkProject } from './server/check-project';
export type { ProjectCheck } from './server/check-project';
