import { realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { isInside, type Project } from '@restbus/project-format';
import { createStaticFiles, createStaticMounts, type StaticFiles } from './create-static-mounts';

/** What the server folder holds that must never go out: its config (with `sessionSecret`) and code. */
const SERVER_FILE = /\.(?:ya?ml|json|[cm]?js|[cm]?ts|map)$/i;
const SERVER_FILES_TEXT = '*.yml, *.yaml, *.json, *.js, *.cjs, *.mjs, *.ts, *.map, node_modules/';

// On case-insensitive file systems `/SERVER/CONFIG.YML` names the same file; comparing folded paths there keeps the
// exclusion from depending on how realpath spells a name.
const fold =
  process.platform === 'darwin' || process.platform === 'win32'
    ? (path: string): string => path.toLowerCase()
    : (path: string): string => path;

/** Mock bodies and schemas are data, never pages: opened in a browser they run no script and reach no cookie. */
const SERVICES_HEADERS: Record<string, string> = { 'content-security-policy': 'sandbox' };
/**
 * The policy of the meta tag in the generated docs' pages (tool/templates/docs/page-head.mustache; a test keeps the
 * two equal): the docs' own scripts run, nothing else does, even on a page whose tag was removed.
 */
export const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'self'";
const DOCS_HEADERS: Record<string, string> = { 'content-security-policy': DOCS_CONTENT_SECURITY_POLICY };

const realOrNull = (path: string): string | null => {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
};

/**
 * The project's static folders in serving order: `/data`, `/docs`, the services folder, then each `documentRoot`
 * at `/`. Every root must resolve inside the project folder (else it is left out, with a warning). The server
 * folder's config and sources, and the project's `config.yml` (with `loginCredentials`), are never served from any
 * folder, because the spec's `default` environment serves `server/` itself (`documentRoot: .`); one warning says
 * so when a folder overlaps the server folder.
 */
export function createProjectStatics(project: Project, warn: (message: string) => void): StaticFiles {
  const { restapiRoot, documentRoots } = project.environment;
  const serverDir = join(project.root, 'server');
  const within = [project.root, restapiRoot].map((dir) => realOrNull(dir)).filter((dir) => dir !== null);
  const mounts = createStaticMounts(
    [
      { prefix: '/data', dir: join(restapiRoot, 'data'), label: 'data/' },
      { prefix: '/docs', dir: join(restapiRoot, 'docs'), label: 'docs/' },
      {
        prefix: '/services',
        dir: join(restapiRoot, project.config.servicesRoot),
        label: `${project.config.servicesRoot}/`,
      },
      ...documentRoots.map((dir) => ({ prefix: '', dir, label: `documentRoot ${relative(serverDir, dir) || '.'}` })),
    ],
    { within, warn },
  );

  // By where the file really is, not by the URL's folder: a documentRoot inside the services folder (or a symlink
  // into it) serves its files sandboxed too. The deeper folder wins, so docs inside a services folder of `.` work.
  const policies = [
    { dir: realOrNull(join(restapiRoot, project.config.servicesRoot)), headers: SERVICES_HEADERS },
    { dir: realOrNull(join(restapiRoot, 'docs')), headers: DOCS_HEADERS },
  ]
    .filter((policy): policy is { dir: string; headers: Record<string, string> } => policy.dir !== null)
    .map((policy) => ({ ...policy, dir: fold(policy.dir) }))
    .sort((a, b) => b.dir.length - a.dir.length);
  const headersFor = (realPath: string): Record<string, string> =>
    policies.find((policy) => isInside(policy.dir, fold(realPath)))?.headers ?? {};

  const realServerDir = realOrNull(serverDir);
  const projectConfig = realOrNull(join(restapiRoot, 'config.yml'));
  if (realServerDir === null) return createStaticFiles(mounts, { headersFor });
  const server = fold(realServerDir);
  const isExcluded = (realPath: string): boolean => {
    const path = fold(realPath);
    if (projectConfig !== null && path === fold(projectConfig)) return true;
    if (!isInside(server, path)) return false;
    return SERVER_FILE.test(path) || path.slice(server.length).split(sep).includes('node_modules');
  };

  const overlapping = mounts.filter(
    (mount) => isInside(fold(mount.root), server) || isInside(server, fold(mount.root)),
  );
  if (overlapping.length) {
    const folders = overlapping.map((mount) => mount.label).join(', ');
    warn(
      `${folders} ${overlapping.length > 1 ? 'serve' : 'serves'} the server folder: its config and sources (${SERVER_FILES_TEXT}) and the project ` +
        'config.yml are not served',
    );
  }
  return createStaticFiles(mounts, { isExcluded, headersFor });
}
