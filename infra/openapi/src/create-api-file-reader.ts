import { constants, type Stats } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RestbusError } from '@restbus/infra';
import { isRemoteUrl } from './find-url-refs';
import type { LoadLimits } from './load-limits';

/** The code of the error a `$ref` to a URL fails with (the parser keeps it as `ioErrorCode`). */
export const REMOTE_REF = 'EREMOTEREF';

export interface ApiFileReaderDeps {
  /** The API file as given (`-r`); its folder confines the files `$refs` may name. */
  file: string;
  allowOutsideRefs: boolean;
  limits: Readonly<LoadLimits>;
}

export interface ApiFileReader {
  /** Reads a file the parser asks for (the API file or one a `$ref` names), within the limits. */
  read(url: string): Promise<Buffer>;
  /**
   * Why a read was refused, which refuses the whole description (a file outside the folder, not regular, over a
   * limit): the parser wraps errors and loses their text, so the loader asks here.
   */
  refusal(): RestbusError | undefined;
  /** The files read so far, in the order their reads ended: the API file and those its `$refs` named. */
  files(): readonly string[];
}

function describeKind(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isSocket()) return 'a socket';
  return 'not a file';
}

/** The parser hands over paths percent-encoded (`#` and `?` too), or `file:` URLs. */
function toPath(url: string): string {
  return resolve(url.startsWith('file:') ? fileURLToPath(url) : decodeURIComponent(url));
}

function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * The parser's only resolver (its HTTP one is off): it reads only regular files, each and all together within the
 * limits, and, unless allowed, only inside the API file's folder (symbolic links followed). A URL, whatever its
 * spelling, is never fetched: as the API file it refuses the description, as a `$ref` it fails that `$ref` (the
 * loader names it where it is written). A FIFO or a device is refused before it is read: opening a FIFO waits for
 * a writer, and a device never ends.
 */
export function createApiFileReader({ file, allowOutsideRefs, limits }: ApiFileReaderDeps): ApiFileReader {
  const root = resolve(file);
  let folder: Promise<string> | undefined;
  let files = 0;
  let bytes = 0;
  let asked = 0;
  let refused: RestbusError | undefined;
  const read: string[] = [];

  /** `why` is said of the file: "is a FIFO, not a regular file". */
  const refuse = (path: string, why: string): never => {
    refused = new RestbusError(
      'OPENAPI_INVALID',
      path === root
        ? `${file}: cannot read the API description: ${why === 'does not exist' ? 'no such file' : `it ${why}`}`
        : `${file}: cannot resolve a $ref: ${path} ${why}`,
    );
    throw refused;
  };

  const assertConfined = async (path: string): Promise<void> => {
    if (allowOutsideRefs || path === root) return;
    folder ??= realpath(dirname(root)).catch(() => dirname(root));
    const real = await realpath(path).catch(() => path);
    if (!isInside(await folder, real)) {
      refuse(
        path,
        `is outside the folder of the API file (${dirname(root)}); start the gateway with --allowOutsideRefs to allow it`,
      );
    }
  };

  const readAll = async (path: string): Promise<Buffer> => {
    // O_NONBLOCK: a FIFO opens at once instead of waiting for a writer, and is then refused by fstat.
    const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => {
      // A `$ref` to a missing file fails that `$ref` alone: the loader decides whether an operation needs it.
      if (err.code === 'ENOENT' && path !== root) throw new Error(`${path} does not exist`);
      return refuse(path, err.code === 'ENOENT' ? 'does not exist' : `cannot be opened (${err.code ?? err.message})`);
    });
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) refuse(path, `is ${describeKind(stats)}, not a regular file`);
      if (stats.size > limits.fileBytes || bytes + stats.size > limits.totalBytes) {
        refuse(path, describeTooLarge(stats.size, limits, bytes));
      }
      if (++files > limits.files) refuse(path, `would be file ${files}, more than the limit of ${limits.files} files`);
      // Reserved before reading: the parser reads the files a document names in parallel.
      bytes += stats.size;
      const chunks: Buffer[] = [];
      let length = 0;
      // Reads past the size fstat gave, up to one byte over the limit: a file that grows meanwhile is caught too.
      for (let want = stats.size + 1; ; want = 64 * 1024) {
        const chunk = Buffer.alloc(Math.min(want, limits.fileBytes + 1 - length));
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
        if (bytesRead === 0) break;
        chunks.push(chunk.subarray(0, bytesRead));
        length += bytesRead;
        if (length > limits.fileBytes) refuse(path, describeTooLarge(length, limits, bytes - stats.size));
      }
      bytes += length - stats.size;
      read.push(path);
      return Buffer.concat(chunks, length);
    } finally {
      await handle.close();
    }
  };

  return {
    async read(url) {
      // The parser asks for the API file first, then for the files its `$refs` name.
      const isRoot = asked++ === 0;
      if (isRemoteUrl(url)) {
        if (isRoot) return refuse(root, `is a URL (${url}), and API descriptions are read only from local files`);
        throw Object.assign(new Error(`${url} is a URL: $refs are read only from local files, never fetched`), {
          code: REMOTE_REF,
        });
      }
      let path: string;
      try {
        path = toPath(url);
      } catch {
        return refuse(url, 'is not a file path');
      }
      await assertConfined(path);
      return readAll(path);
    },
    refusal: () => refused,
    files: () => read,
  };
}

function describeTooLarge(size: number, limits: Readonly<LoadLimits>, readBefore: number): string {
  if (size > limits.fileBytes) return `has ${size} bytes, more than the limit of ${limits.fileBytes}`;
  return `has ${size} bytes, which with the ${readBefore} read before passes the limit of ${limits.totalBytes} for all the files of one API description`;
}
