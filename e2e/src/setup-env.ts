// Settings testcontainers needs on a machine with no image registry; a value the caller set is kept.
import { existsSync } from 'node:fs';

// The reaper (Ryuk) image cannot be pulled offline; the suites tear their stacks down in afterAll instead.
process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
// With /.dockerenv present testcontainers looks for a gateway by pulling alpine; the engine is local here.
if (existsSync('/.dockerenv')) process.env.TESTCONTAINERS_HOST_OVERRIDE ??= 'localhost';
