/** The session files under `.orchestration/.sessions/`: one per editor server or agent session, and `workspace.json`. */
import { existsSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  asSession,
  isPrunable,
  legacySessionFileName,
  sessionFileName,
  WORKSPACE_SELECTION,
  type SelectionDamage,
  type SessionRecord,
  type WorkspaceSelection,
} from "../engine/sessions";
import { SESSIONS_DIR } from "../engine/workspaceFiles";
import { ensureOwnDir, ownFilePath, readOwnFile, removeOwnFile, writeOwnFile } from "./ownFiles";

/** Creates the sessions folder where it really lands (never through a link out of the workspace). */
export function ensureSessionsDir(root: string): void {
  const dir = ensureOwnDir(root, SESSIONS_DIR);
  // The folder ignores itself so that session files never end up in a commit.
  if (!existsSync(join(dir, ".gitignore"))) writeOwnFile(root, `${SESSIONS_DIR}/.gitignore`, "*\n", { durable: false });
}

/** A session file (relative to the root), read only where it really lands inside the workspace. */
/** A JSON file's value (undefined when absent), or why a file that is there cannot be read as JSON. */
function readJsonFile<T>(root: string, rel: string): { value?: T; damaged?: string } {
  let text: string | undefined;
  try {
    text = readOwnFile(root, rel);
  } catch (e) {
    // nothing at that path (a folder on the way that is a file): absent, and a write there fails and says why
    if (!presentAt(join(root, rel))) return {};
    return { damaged: `${rel} cannot be read safely (${(e as Error).message})` }; // not a file (a FIFO), or out of the workspace
  }
  if (text === undefined) return {};
  try {
    return { value: JSON.parse(text) as T };
  } catch {
    return { damaged: `${rel} is not valid JSON (half-written, or edited by hand)` };
  }
}

function presentAt(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function readJson<T>(root: string, rel: string): T | undefined {
  return readJsonFile<T>(root, rel).value;
}

/** The workspace's selection file, or why it is there but not one; both undefined when it is absent. */
function workspaceSelectionFile(root: string): { selection?: WorkspaceSelection; damaged?: string } {
  const rel = `${SESSIONS_DIR}/${WORKSPACE_SELECTION}`;
  const { value, damaged } = readJsonFile<WorkspaceSelection>(root, rel);
  if (damaged !== undefined) return { damaged };
  if (value === undefined) return {};
  return typeof value?.intent === "string" || value?.intent === null ? { selection: value } : { damaged: `${rel} holds no selection (no "intent")` };
}

export function readWorkspaceSelection(root: string): WorkspaceSelection | undefined {
  return workspaceSelectionFile(root).selection;
}

/** What the selection files a session reads hold, each file read once. */
export interface SelectionFiles {
  /** The session's own record (an agent's, by its id), when it has one. */
  session?: SessionRecord;
  workspace?: WorkspaceSelection;
  /** Why a file that is there cannot be read: a file that is absent is no damage; one that is not a selection is. */
  damage: SelectionDamage;
}

export function readSelectionFiles(root: string, sessionId?: string): SelectionFiles {
  const out: SelectionFiles = { damage: {} };
  const workspace = workspaceSelectionFile(root);
  if (workspace.selection) out.workspace = workspace.selection;
  if (workspace.damaged !== undefined) out.damage.workspace = workspace.damaged;
  if (sessionId !== undefined) {
    const own = sessionFile(root, sessionId);
    if (own.record) out.session = own.record;
    if (own.damaged !== undefined) out.damage.session = own.damaged;
  }
  return out;
}

/**
 * A session's record, or why its file is there but not one (undefined both: absent). A session that began
 * before an upgrade has its file under the earlier name until it writes the new one.
 */
export function sessionFile(root: string, id: string): { record?: SessionRecord; damaged?: string } {
  const rel = `${SESSIONS_DIR}/${sessionFileName(id)}`;
  const { value, damaged } = readJsonFile(root, rel);
  if (damaged !== undefined) return { damaged };
  if (value !== undefined) {
    const record = asSession(value);
    return record ? { record } : { damaged: `${rel} holds no session record` };
  }
  const legacy = legacySessionFileName(id);
  const earlier = legacy === undefined ? undefined : asSession(readJson(root, `${SESSIONS_DIR}/${legacy}`));
  return earlier?.id === id ? { record: earlier } : {};
}

export function writeWorkspaceSelection(root: string, intent: string | null, by: string, now = new Date()): WorkspaceSelection {
  const sel: WorkspaceSelection = { intent, selectedAt: now.toISOString(), by };
  ensureSessionsDir(root);
  writeOwnFile(root, `${SESSIONS_DIR}/${WORKSPACE_SELECTION}`, `${JSON.stringify(sel, null, 2)}\n`);
  return sel;
}

export function readSession(root: string, id: string): SessionRecord | undefined {
  return sessionFile(root, id).record;
}

export function writeSession(root: string, record: SessionRecord): void {
  ensureSessionsDir(root);
  writeOwnFile(root, `${SESSIONS_DIR}/${sessionFileName(record.id)}`, `${JSON.stringify(record, null, 2)}\n`, { durable: false });
}

export function removeSession(root: string, id: string): void {
  removeOwnFile(root, `${SESSIONS_DIR}/${sessionFileName(id)}`); // false: already gone, or not ours to remove
  const legacy = legacySessionFileName(id);
  if (legacy !== undefined) removeOwnFile(root, `${SESSIONS_DIR}/${legacy}`);
}

export function listSessions(root: string): SessionRecord[] {
  let names: string[];
  try {
    names = readdirSync(ownFilePath(root, SESSIONS_DIR, "directory")); // never a folder out of the workspace
  } catch {
    return [];
  }
  const byId = new Map<string, SessionRecord>();
  for (const n of names) {
    if (!n.endsWith(".json") || n === WORKSPACE_SELECTION) continue;
    const s = asSession(readJson(root, `${SESSIONS_DIR}/${n}`));
    // one session under two names (its file from before an upgrade, and its own): the one it beat in last
    const other = s && byId.get(s.id);
    if (s && !(other && other.heartbeat >= s.heartbeat)) byId.set(s.id, s);
  }
  return [...byId.values()];
}

/** Removes session files whose heartbeat stopped a day ago or more (agents that never sent SessionEnd). */
export function pruneDeadSessions(root: string, now = Date.now()): void {
  for (const s of listSessions(root)) if (isPrunable(s, now)) removeSession(root, s.id);
}
