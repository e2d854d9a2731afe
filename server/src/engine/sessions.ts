/**
 * Sessions (docs/ARCHITECTURE.md "Sessions and the active intent"): every editor server and agent session has a file under `.orchestration/.sessions/`
 * with its selection and a heartbeat; `workspace.json` holds the selection shared by all of them.
 */
import { createHash } from "node:crypto";
import type { Selection } from "./gate";
import { MAX_DENIAL_TIMES } from "./agent/circuitBreaker";

export interface SessionRecord {
  id: string;
  client: string;
  pid: number;
  host: string;
  startedAt: string;
  heartbeat: string;
  /** This session's own selection; absent means it follows the workspace selection. */
  intent?: string | null;
  /** Workspace-relative files this session has unsaved edits to. */
  dirtyFiles?: string[];
  /**
   * Intents this session is working under right now: those of an editor's unsaved edits, or the one an
   * agent's latest allowed write counted under. What "holds the same intent" means for claimed-elsewhere.
   */
  workingOn?: string[];
  /** An agent session's recent denials by the gate, ms since the epoch (engine/agent/circuitBreaker.ts). */
  denials?: number[];
  /**
   * What a shell command of this agent session changed of the rules (or the ledger) without the user's
   * approval: while set, the gate denies the session's writes; a new selection for it (`intent select ID
   * --session S`) clears it.
   */
  held?: string;
}

export interface WorkspaceSelection {
  intent: string | null;
  selectedAt: string;
  by: string;
}

export const WORKSPACE_SELECTION = "workspace.json";
/** A session whose heartbeat is older than this is treated as gone. */
const SESSION_TTL_MS = 120_000;
/** A session file this stale is removed by whoever notices (an agent that never sent SessionEnd). */
const SESSION_PRUNE_MS = 24 * 60 * 60 * 1000;
export const HEARTBEAT_MS = 30_000;

/** A list of times (ms since the epoch), at most the breaker's bound of them; anything else is no list of times. */
function times(v: unknown): number[] | undefined {
  return Array.isArray(v) && v.length <= MAX_DENIAL_TIMES && v.every((x) => Number.isSafeInteger(x)) ? (v as number[]) : undefined;
}

/** A session file as written by any version of any door; anything else is not a session. */
export function asSession(raw: unknown): SessionRecord | undefined {
  const r = raw as Partial<SessionRecord> | null;
  if (!r || typeof r !== "object" || typeof r.id !== "string" || typeof r.heartbeat !== "string") return undefined;
  const strings = (v: unknown) => (Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : undefined);
  return {
    id: r.id,
    client: typeof r.client === "string" ? r.client : "unknown",
    pid: typeof r.pid === "number" && Number.isInteger(r.pid) ? r.pid : 0,
    host: typeof r.host === "string" ? r.host : "",
    startedAt: typeof r.startedAt === "string" ? r.startedAt : r.heartbeat,
    heartbeat: r.heartbeat,
    ...(typeof r.intent === "string" || r.intent === null ? { intent: r.intent } : {}),
    ...(strings(r.dirtyFiles) ? { dirtyFiles: strings(r.dirtyFiles) } : {}),
    ...(strings(r.workingOn) ? { workingOn: strings(r.workingOn) } : {}),
    ...(times(r.denials) ? { denials: times(r.denials) } : {}),
    ...(typeof r.held === "string" ? { held: r.held } : {}),
  };
}

/**
 * Session ids come from agents too. A plain id (letters, digits, ".", "_", "-"; not led by a dot) is its own
 * file name, marked `.session.json`. Any other id gets a safe, readable name plus a short hash of the exact
 * id, so that ids differing only in unsafe characters never share a file. The two forms cannot meet (a
 * hash is never "session"), and neither is `workspace.json`. A plain id, what every editor and agent
 * sends, is named without SHA-256: loading Node's crypto module costs a hook process about 4 ms, and a hook
 * that only keeps its session alive (a prompt submitted, a stop) hashes nothing else.
 */
export function sessionFileName(id: string): string {
  return PLAIN_SESSION_ID.test(id) ? `${id}.session.json` : hashedSessionFileName(id);
}

/**
 * The name an earlier intent-lsp gave every session's file, still read for a plain id whose session began
 * before an upgrade (its selection is kept), and removed with it.
 */
export function legacySessionFileName(id: string): string | undefined {
  return PLAIN_SESSION_ID.test(id) ? hashedSessionFileName(id) : undefined;
}

function hashedSessionFileName(id: string): string {
  const readable = id
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^\.+/, "_")
    .slice(0, 100);
  const hash = createHash("sha256").update(id).digest("hex").slice(0, 8);
  return `${readable}.${hash}.json`;
}

const PLAIN_SESSION_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/;

/** The process a session runs in: pid 0 for a door that has no long-lived process (an agent's hook). */
export interface SessionOrigin {
  pid: number;
  host: string;
}

export function newSessionRecord(id: string, client: string, origin: SessionOrigin, now = new Date()): SessionRecord {
  const t = now.toISOString();
  return { id, client, pid: origin.pid, host: origin.host, startedAt: t, heartbeat: t };
}

/**
 * A session is live while its heartbeat is fresh and, when its process is known, that process runs:
 * `processRuns` answers for sessions whose pid can be probed (io/liveSessions.ts), so an editor that
 * crashed stops claiming files at once instead of two minutes later.
 */
export function isLive(s: SessionRecord, now: number, processRuns: (s: SessionRecord) => boolean): boolean {
  if (now - Date.parse(s.heartbeat) > SESSION_TTL_MS) return false;
  return processRuns(s);
}

/** Why a selection file that exists cannot be read: the session's own, the workspace's (undefined: each reads). */
export interface SelectionDamage {
  session?: string;
  workspace?: string;
}

/**
 * docs/ARCHITECTURE.md "Sessions and the active intent": the session's own selection, else the workspace's.
 * Auto-selection happens in the gate. A selection file that cannot be read stands for a selection nobody
 * knows (`Selection.unreadable`): the session's, or the workspace's when the session follows it.
 */
export function resolveSelection(
  session: Pick<SessionRecord, "intent"> | undefined,
  workspace: WorkspaceSelection | undefined,
  damage: SelectionDamage = {},
): Selection | undefined {
  if (damage.session !== undefined) return { intentId: "", source: "session", unreadable: damage.session };
  if (session?.intent) return { intentId: session.intent, source: "session" };
  if (damage.workspace !== undefined) return { intentId: "", source: "workspace", unreadable: damage.workspace };
  if (workspace?.intent) return { intentId: workspace.intent, source: "workspace" };
  return undefined;
}

/** A session file whose heartbeat stopped a day ago or more (an agent that never sent SessionEnd) is removed. */
export function isPrunable(s: SessionRecord, now = Date.now()): boolean {
  const beat = Date.parse(s.heartbeat);
  return Number.isNaN(beat) || now - beat > SESSION_PRUNE_MS;
}
