import { join } from 'node:path';

/** The tool's own templates; `src/project` and `dist/project` are both two folders below the package. */
export const toolTemplatesDir = join(__dirname, '..', '..', 'templates');
