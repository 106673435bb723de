import { extname } from 'node:path';

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
export function mediaTypeOf(headers: unknown, file?: string): string {
  const declared = (Array.isArray(headers) ? headers : []).find(
    (header: { field?: unknown }) => typeof header?.field === 'string' && header.field.toLowerCase() === 'content-type',
  ) as { content?: unknown } | undefined;
  if (typeof declared?.content === 'string' && declared.content.trim()) {
    return declared.content.split(';')[0].trim().toLowerCase();
  }
  return (file && BY_EXTENSION[extname(file).toLowerCase()]) ?? 'application/octet-stream';
}

export const isTextType = (type: string): boolean =>
  type.startsWith('text/') || type === 'application/xml' || type === 'application/yaml' || type.endsWith('+xml');
