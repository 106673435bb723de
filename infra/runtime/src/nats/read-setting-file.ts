import { readFileSync } from 'node:fs';
import { readErrorCode } from '../errors/read-caught-error';

const READ_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'the file cannot be read (permission denied)',
  EPERM: 'the file cannot be read (permission denied)',
  EISDIR: 'is a folder, not a file',
  ENOTDIR: 'no such file (a part of the path is not a folder)',
};

/**
 * Reads a file a setting names, for the checks made at start: its bytes, or what keeps it from being read, said
 * so that the line names the problem and never the content.
 */
export function readSettingFile(path: unknown): { bytes: Buffer } | { problem: string } {
  try {
    return { bytes: readFileSync(String(path)) };
  } catch (err) {
    const code = readErrorCode(err) ?? '';
    return { problem: READ_PROBLEMS[code] ?? `the file cannot be read (${code || 'unknown error'})` };
  }
}
