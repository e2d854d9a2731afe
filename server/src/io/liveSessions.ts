/**
 * Which sessions still run (docs/ARCHITECTURE.md "Sessions and the active intent"): the heartbeat rule is the
 * engine's (engine/sessions.ts); this module answers the one question it cannot, whether a session's
 * process on this host is alive.
 */
import { hostname } from "node:os";
import { isLive, type SessionOrigin, type SessionRecord } from "../engine/sessions";

/** This process, as a session started here records it. */
export function thisProcess(): SessionOrigin {
  return { pid: process.pid, host: hostname() };
}

/**
 * Signal 0 probes without signalling: ESRCH means the process is gone, EPERM that it runs under another
 * user. Sessions of other hosts, or without a pid (agents' hooks), cannot be probed and count as running.
 */
export function sessionProcessRuns(s: SessionRecord): boolean {
  if (s.host !== hostname() || s.pid <= 0) return true;
  try {
    process.kill(s.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function isLiveSession(s: SessionRecord, now = Date.now()): boolean {
  return isLive(s, now, sessionProcessRuns);
}
