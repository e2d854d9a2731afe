/**
 * Agent sessions (docs/ARCHITECTURE.md "Sessions and the active intent") as the hook CLI sees them: each hook call is a short process, so there is no
 * pid to watch (pid 0); liveness is the heartbeat, refreshed by every call and expiring after the TTL.
 */
import { createHash } from "node:crypto";
import { hostname } from "node:os";
import { newSessionRecord, type SessionRecord } from "../../engine/sessions";
import { removeSession, sessionFile, writeSession } from "../sessionFiles";

/**
 * Session ids a person can type and a shell passes unquoted; every id the doors make is one (editors:
 * `lsp-<uuid>`, agents: `agentSessionId`).
 */
const SAFE_ID = /^[A-Za-z0-9._-]{1,120}$/;
/** "workspace" names the workspace selection (`.sessions/workspace.json`), never a session. */
const RESERVED_ID = "workspace";

/** Why `id` cannot name a session (for `intent select --session`), or undefined when it can. */
export function sessionIdProblem(id: string): string | undefined {
  if (id === RESERVED_ID) return `"${id}" is not a session: it names the workspace selection (select without --session for that)`;
  if (!SAFE_ID.test(id)) return `"${id}" is not a session id: letters, digits, ".", "_" and "-", at most 120 (\`intent status\` lists the live sessions)`;
  return undefined;
}

/**
 * The session id of an agent's session: `claude-<id>`. An id the agent made that a shell would need quoted
 * (or that is too long) is replaced by its hash, so the command the gate tells the agent to run, `intent
 * select ID --session <session id>`, works as printed.
 */
export type AgentPrefix = keyof typeof CLIENT_OF_PREFIX;

/** Each agent's session id prefix and the client name its sessions are listed under. */
const CLIENT_OF_PREFIX = {
  claude: "claude-code",
  cursor: "cursor",
  codex: "codex",
  gemini: "gemini",
  copilot: "copilot",
  windsurf: "windsurf",
  cline: "cline",
  droid: "droid",
  qwen: "qwen",
  kiro: "kiro",
  goose: "goose",
  auggie: "auggie",
  opencode: "opencode",
  amp: "amp",
} as const;

export function agentSessionId(agent: AgentPrefix, id: string): string {
  const plain = `${agent}-${id}`;
  return SAFE_ID.test(plain) ? plain : `${agent}-${createHash("sha256").update(id).digest("hex").slice(0, 32)}`;
}

/** The client name for a session id made by `agentSessionId` (or "cli" for anything else). */
function clientOfSession(id: string): string {
  const prefix = id.slice(0, id.indexOf("-")) as AgentPrefix;
  return Object.hasOwn(CLIENT_OF_PREFIX, prefix) ? CLIENT_OF_PREFIX[prefix] : "cli";
}

interface SessionTouch {
  /** Default: the client already recorded, else the one the id implies. */
  client?: string;
  /** Set this session's own selection (null: follow the workspace again); absent keeps it. */
  intent?: string | null;
  /** The intent the agent's latest allowed write counted under (see SessionRecord.workingOn). */
  workingOn?: string;
  now?: Date;
}

/**
 * A heartbeat younger than this is not written again by a call that changes nothing else: an agent's hooks
 * come seconds apart (a write's pre and post hook), and a session counts as live for minutes after its last
 * heartbeat (engine/sessions.ts), so rewriting the file on every call only costs each call a write.
 */
const FRESH_HEARTBEAT_MS = 5_000;

/** Creates or refreshes the session file; keeps its start time and, unless told otherwise, its own selection. */
export function touchAgentSession(root: string, id: string, touch: SessionTouch = {}): SessionRecord {
  const now = touch.now ?? new Date();
  const { record: existing, damaged } = sessionFile(root, id);
  const client = touch.client ?? existing?.client ?? clientOfSession(id);
  if (existing && touch.intent === undefined && touch.workingOn === undefined && isFresh(existing, client, now)) return existing;
  const record: SessionRecord = existing
    ? { ...existing, client, pid: 0, host: hostname(), heartbeat: now.toISOString() }
    : newSessionRecord(id, client, { pid: 0, host: hostname() }, now);
  if (touch.intent !== undefined) {
    record.intent = touch.intent;
    delete record.held; // the user chose again: the session is no longer held
  }
  if (touch.workingOn !== undefined) record.workingOn = [touch.workingOn];
  // a file that is there but unreadable holds a selection nobody knows: the gate denies until someone selects
  // again (`intent select`), so only a new selection replaces it, never a heartbeat that would forget it
  if (damaged !== undefined && touch.intent === undefined) return record;
  writeSession(root, record);
  return record;
}

/** A record this host's hooks wrote for this client within the last few seconds. */
function isFresh(existing: SessionRecord, client: string, now: Date): boolean {
  const age = now.getTime() - Date.parse(existing.heartbeat);
  return existing.client === client && existing.pid === 0 && existing.host === hostname() && age >= 0 && age < FRESH_HEARTBEAT_MS;
}

export function endAgentSession(root: string, id: string): void {
  removeSession(root, id);
}

/**
 * Keeps an agent session's recent denials in its file (engine/agent/circuitBreaker.ts), or clears them
 * (`times` empty): the file as it is now (this call may have written it since it was read), else `session`.
 */
export function keepDenials(root: string, session: SessionRecord, times: readonly number[]): void {
  const now = sessionFile(root, session.id);
  if (now.damaged !== undefined) return; // kept as it is: see touchAgentSession
  const { denials: _, ...rest } = now.record ?? session;
  writeSession(root, times.length ? { ...rest, denials: [...times] } : rest);
}

/**
 * Holds an agent session after one of its shell commands changed the rules (or rewrote the ledger) without
 * the user's approval: the gate denies its writes until the user selects for it again. No session file (the
 * command removed it, or it cannot be written): a new one, held.
 */
export function holdSession(root: string, id: string, what: string, now = new Date()): void {
  const { record } = sessionFile(root, id);
  writeSession(root, { ...(record ?? newSessionRecord(id, clientOfSession(id), { pid: 0, host: hostname() }, now)), held: what });
}
