import { readFileSync } from 'node:fs';

// USER_HZ, the unit of /proc/<pid>/stat's times, is 100 on every Linux architecture Node runs on.
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) a process has used so far, or undefined where /proc is missing. Unlike requests per
 * second, CPU per request hardly moves when other work on the machine takes turns on the cores.
 */
export function cpuSecondsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
