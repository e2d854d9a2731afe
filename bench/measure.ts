/** Timing and memory readings, all taken from outside the measured process. */
import { execFileSync, spawnSync, type SpawnSyncOptions } from "node:child_process";
import { readFileSync } from "node:fs";

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** Nearest-rank percentiles: with few samples p99 is the maximum, which is the honest reading. */
export function summarize(values: readonly number[]): Summary {
  const s = [...values].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
  return { n: s.length, p50: at(50), p99: at(99), mean: s.reduce((a, b) => a + b, 0) / (s.length || 1), min: s[0] ?? NaN, max: s[s.length - 1] ?? NaN };
}

export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export interface Timed {
  ms: number;
  /**
   * CPU time (user + system) of the process and the processes it waited for, in ms (10 ms ticks); NaN where
   * the system does not say (not Linux). Load from other work on the machine stretches wall time, not this.
   */
  cpuMs: number;
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a process to completion and times it wall-clock, spawn included (as a hook or CI job pays it). */
export function timeProcess(command: string, args: readonly string[], opts: SpawnSyncOptions & { keepStdout?: boolean } = {}): Timed {
  const c0 = childrenCpuMs();
  const t0 = nowMs();
  const r = spawnSync(command, args, { encoding: "utf8", maxBuffer: 1 << 30, ...opts, stdio: ["pipe", opts.keepStdout ? "pipe" : "ignore", "pipe"] });
  const ms = nowMs() - t0;
  if (r.error) throw r.error;
  return { ms, cpuMs: childrenCpuMs() - c0, status: r.status, stdout: String(r.stdout ?? ""), stderr: String(r.stderr ?? "") };
}

/**
 * CPU time of this process's waited-for children so far (Linux /proc/self/stat `cutime` + `cstime`): a
 * spawnSync'd process and everything it waited for add to it once it is reaped.
 */
function childrenCpuMs(): number {
  try {
    const ms = tickMs(); // first: its getconf is a child too, and must not fall between two readings
    const fields = statFields("self");
    return (Number(fields[13]) + Number(fields[14])) * ms;
  } catch {
    return Number.NaN;
  }
}

/** The fields of /proc/PID/stat from the third (the state) on: after the command's name, in parentheses. */
function statFields(pid: number | "self"): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

let tick: number | undefined;

/** Milliseconds in one of the kernel's clock ticks, the unit of the CPU times in /proc. */
function tickMs(): number {
  tick ??= 1000 / (Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100);
  return tick;
}

/** Resident and peak resident memory of a live process, in MB (Linux /proc). */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
}

/**
 * CPU time (user and system) that process `pid` has used so far, all its threads together (a server's worker
 * threads included), from /proc/PID/stat: what shows whether a start is bound by the processors or waits.
 */
export function cpuMsOf(pid: number): number {
  const fields = statFields(pid); // utime and stime are the 14th and 15th
  return (Number(fields[11]) + Number(fields[12])) * tickMs();
}

/** A seeded sequence, so the lines hovered and typed on are the same in every run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
