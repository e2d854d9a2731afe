import { hostname } from "node:os";
import { newSessionRecord, readSession, removeSession, writeSession, type SessionRecord } from "../sessions";

/**
 * Agent sessions (DESIGN §3) as the hook CLI sees them: each hook call is a short process, so there is no
 * pid to watch (pid 0); liveness is the heartbeat, refreshed by every call and expiring after the TTL.
 */

export function agentSessionId(agent: "claude" | "cursor", id: string): string {
  return `${agent}-${id}`;
}

/** Creates or refreshes the session file; keeps its start time and its own selection. */
export function touchAgentSession(root: string, id: string, client: string, now = new Date()): SessionRecord {
  const existing = readSession(root, id);
  const record: SessionRecord = existing
    ? { ...existing, client, pid: 0, host: hostname(), heartbeat: now.toISOString() }
    : { ...newSessionRecord(id, client, now), pid: 0 };
  writeSession(root, record);
  return record;
}

export function endAgentSession(root: string, id: string): void {
  removeSession(root, id);
}

/** The client name recorded for a session id made by `agentSessionId` (or "cli" for anything else). */
export function clientOfSession(id: string): string {
  if (id.startsWith("claude-")) return "claude-code";
  if (id.startsWith("cursor-")) return "cursor";
  return "cli";
}
