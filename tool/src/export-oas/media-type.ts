import { extname } from 'node:path';
import type { FieldList } from '@restbus/project-format';

const BY_EXTENSION: Record<string, string> = {
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.txt': 'text/plain',
  '.html': 'text/html',
  '.csv': 'text/csv',
  '.yml': 'application/yaml',
  '.yaml': 'application/yaml',
};

/** The declared Content-Type of a header list (without parameters), else a guess from the file's extension. */
export function mediaTypeOf(headers: FieldList | undefined, file?: string): string {
  const declared = (headers ?? []).find((header) => header.field.toLowerCase() === 'content-type');
  if (declared?.content.trim()) {
    return declared.content.split(';')[0].trim().toLowerCase();
  }
  return (file && BY_EXTENSION[extname(file).toLowerCase()]) ?? 'application/octet-stream';
}

export const isTextType = (type: string): boolean =>
  type.startsWith('text/') || type === 'application/xml' || type === 'application/yaml' || type.endsWith('+xml');
