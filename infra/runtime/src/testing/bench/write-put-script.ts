import { writeFile } from 'node:fs/promises';

/** Writes a wrk script whose every request replaces one of the persons p0..p{count-1}, picked at random. */
export async function writePutScript(file: string, count: number): Promise<void> {
  const lines = [
    'wrk.method = "PUT"',
    'wrk.headers["Content-Type"] = "application/json"',
    'request = function()',
    `  local id = "p" .. math.random(0, ${count - 1})`,
    `  return wrk.format(nil, "/persons/" .. id, nil, '{"id":"' .. id .. '","familyName":"Bench","givenName":"Put"}')`,
    'end',
    '',
  ];
  await writeFile(file, lines.join('\n'));
}
