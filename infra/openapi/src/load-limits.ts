/**
 * How much work loading one API description may take. A reload runs on the thread that serves requests and
 * handles signals, so every step is bounded: the files read, and the size of the document once its `$refs` are
 * resolved (repeated `$refs` and YAML aliases make that grow exponentially in a file of a few hundred bytes).
 */
export interface LoadLimits {
  /** Bytes of one file (the API file or a file a `$ref` names). */
  fileBytes: number;
  /** Bytes of all the files of one API description together. */
  totalBytes: number;
  /** Files one API description may read (itself and those its `$refs` name). */
  files: number;
  /** Nodes of the document with every `$ref` and YAML alias expanded; a long string counts one per 64 characters. */
  expandedNodes: number;
  /** Levels of nesting of the document with every `$ref` expanded. */
  depth: number;
}

export const LOAD_LIMITS: Readonly<LoadLimits> = {
  fileBytes: 4 * 1024 * 1024,
  totalBytes: 16 * 1024 * 1024,
  files: 256,
  expandedNodes: 250_000,
  depth: 256,
};
