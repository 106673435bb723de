import { realpathSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { Request, Response } from 'express';
import { RestbusError } from '@restbus/infra';
import { isInside } from '@restbus/project-format';

export interface StaticMount {
  /** URL prefix (`/data`), or '' for a documentRoot served at `/`. */
  prefix: string;
  /** The folder, real path (symlinks resolved). */
  root: string;
  /** How messages name it. */
  label?: string;
}

export interface MountEntry {
  prefix: string;
  dir: string;
  /** How a warning names the folder, e.g. `data/` or `documentRoot ../webui`. */
  label?: string;
}

export interface MountScope {
  /** Real folders that every root must resolve inside (the project's). */
  within: string[];
  /** Told about each root that resolves elsewhere: it is not mounted. */
  warn(message: string): void;
}

export interface StaticFileRules {
  /** Files (by real path) that are never served although they are inside a mount: answered as if absent. */
  isExcluded?(realPath: string): boolean;
  /** Headers the file (by real path) goes out with, beside `X-Content-Type-Options: nosniff`, which every file has. */
  headersFor?(realPath: string): Record<string, string>;
}

export interface StaticFiles {
  /** Serves the request from the first mount that has the file; false when none has it. */
  serve(req: Request, res: Response): Promise<boolean>;
}

/**
 * The mounts in serving order; folders that do not exist are left out (a project need not have `data/`). A root is
 * resolved to its real location before anything is served from it and, with a scope, must lie inside it: checking
 * only what is below a root would let the root itself (a `webui` symlink to `/etc`) lead anywhere.
 */
export function createStaticMounts(entries: MountEntry[], scope?: MountScope): StaticMount[] {
  const mounts: StaticMount[] = [];
  for (const { prefix, dir, label } of entries) {
    let root: string;
    try {
      root = realpathSync(dir);
    } catch {
      // Not there (yet): nothing to serve from it.
      continue;
    }
    if (scope && !scope.within.some((folder) => isInside(folder, root))) {
      scope.warn(`${label ?? dir} leads outside the project folder (to ${root}): not served`);
      continue;
    }
    mounts.push({ prefix, root, label });
  }
  return mounts;
}

const hasDotSegment = (root: string, real: string): boolean =>
  real
    .slice(root.length)
    .split(sep)
    .some((segment) => segment.startsWith('.'));

/**
 * Static folders that nothing leaves: `..` in any spelling is refused, and a path (or symlink) whose real
 * location is outside its folder is refused, so the check holds for what the file system resolves, not only for
 * what the URL says. Dot files are not served, nor what `rules` exclude.
 */
export function createStaticFiles(mounts: StaticMount[], rules: StaticFileRules = {}): StaticFiles {
  const isExcluded = rules.isExcluded ?? (() => false);
  const headersFor = rules.headersFor ?? (() => ({}));

  async function serveFrom(mount: StaticMount, relativePath: string, req: Request, res: Response): Promise<boolean> {
    let decoded: string;
    try {
      decoded = decodeURIComponent(relativePath);
    } catch {
      throw new RestbusError('BAD_REQUEST', 'the path is not valid percent-encoding');
    }
    if (decoded.includes('\0')) throw new RestbusError('BAD_REQUEST', 'the path contains a NUL byte');
    const segments = decoded.split(/[/\\]/);
    if (segments.includes('..')) throw new RestbusError('FORBIDDEN', 'the path leaves the folder');
    if (segments.some((segment) => segment.startsWith('.') && segment !== '.')) return false;

    let real: string;
    try {
      real = await realpath(join(mount.root, decoded));
    } catch {
      return false;
    }
    if (!isInside(mount.root, real)) throw new RestbusError('FORBIDDEN', 'the path leaves the folder');
    // What a symlink inside the folder resolves to obeys the same rules as what the URL names.
    if (isExcluded(real) || hasDotSegment(mount.root, real)) return false;
    const info = await stat(real);
    if (info.isDirectory()) {
      if (!req.path.endsWith('/')) {
        res.setHeader('x-content-type-options', 'nosniff');
        const query = req.originalUrl.indexOf('?');
        res.redirect(301, `${req.path}/${query >= 0 ? req.originalUrl.slice(query) : ''}`);
        return true;
      }
      let index: string;
      try {
        index = await realpath(join(real, 'index.html'));
      } catch {
        return false;
      }
      if (!isInside(mount.root, index)) throw new RestbusError('FORBIDDEN', 'the path leaves the folder');
      if (isExcluded(index) || hasDotSegment(mount.root, index)) return false;
      real = index;
    } else if (!info.isFile()) {
      return false;
    }
    const file = real;
    // These folders are on the API's own origin: a browser must not guess a type (a .txt that looks like HTML), and
    // what headersFor adds (a sandbox, a script policy) keeps a file there from running script as the API's origin.
    const headers = { ...headersFor(file), 'x-content-type-options': 'nosniff' };
    await new Promise<void>((resolve, reject) => {
      // The root option makes `send` check only the part below the folder (a project under `~/.x/` still works).
      res.sendFile(file.slice(mount.root.length + 1), { root: mount.root, dotfiles: 'allow', headers }, (err) =>
        err && !res.headersSent ? reject(err) : resolve(),
      );
    });
    return true;
  }

  return {
    async serve(req, res) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      const path = req.path;
      for (const mount of mounts) {
        if (mount.prefix && path !== mount.prefix && !path.startsWith(`${mount.prefix}/`)) continue;
        if (await serveFrom(mount, path.slice(mount.prefix.length) || '/', req, res)) return true;
      }
      return false;
    },
  };
}
