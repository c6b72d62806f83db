/**
 * Where a local service's CPU goes: the CPU time of every thread of its process tree, read from
 * /proc before and after a load, summed per part (the front's main thread, the front process's other
 * threads, each stand-in) and divided by the requests answered. Linux only: elsewhere there is no
 * /proc, and the bench prints nothing for it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second as /proc counts them (USER_HZ, 100 on every Linux Node runs on). */
const ticksPerSecond = 100;

export type CpuSnapshot = Map<string, number>;

function statFields(file: string): string[] | null {
  try {
    const stat = readFileSync(file, 'utf8');
    // The command name (2nd field) may hold spaces and parentheses: the fields after it start after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null; // the process or thread is gone
  }
}

function processTree(root: number): number[] {
  // Each process's parent, read once: the tree is then followed down from the root.
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const parent = Number(statFields(`/proc/${name}/stat`)?.[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] as number) ?? []));
  return tree;
}

/** What a process of the local service is, from its command line. */
function partOf(pid: number): string {
  let command = '';
  try {
    command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return 'other';
  }
  if (command.includes('sqs-stand-in')) return 'SQS stand-in';
  if (command.includes('s3-stand-in')) return 'S3 stand-in';
  if (command.includes('DynamoDBLocal')) return 'DynamoDB Local';
  if (command.includes('local/main')) return 'front process';
  return 'other';
}

/** CPU seconds so far per part of the tree under `root` (empty where there is no /proc). */
export function cpuSnapshot(root: number): CpuSnapshot {
  const seconds: CpuSnapshot = new Map();
  if (!existsSync(`/proc/${root}/task`)) return seconds;
  for (const pid of processTree(root)) {
    const part = partOf(pid);
    let threads: string[] = [];
    try {
      threads = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of threads) {
      const fields = statFields(`/proc/${pid}/task/${tid}/stat`);
      if (!fields) continue;
      // utime and stime are the 14th and 15th fields of the line, the 12th and 13th after the name.
      const cpu = (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
      const name =
        part === 'front process'
          ? Number(tid) === pid
            ? 'front, main thread'
            : 'front, other threads (function threads, GC)'
          : part;
      seconds.set(name, (seconds.get(name) ?? 0) + cpu);
    }
  }
  return seconds;
}

/** µs of CPU per request for each part between two snapshots, largest first. */
export function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number): [string, number][] {
  return [...after]
    .map(([part, seconds]): [string, number] => [part, ((seconds - (before.get(part) ?? 0)) * 1e6) / requests])
    .filter(([, micros]) => micros >= 1)
    .sort((a, b) => b[1] - a[1]);
}
