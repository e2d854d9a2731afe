/** The session files under `.orchestration/.sessions/`: one per editor server or agent session, and `workspace.json`. */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  asSession,
  isPrunable,
  legacySessionFileName,
  sessionFileName,
  WORKSPACE_SELECTION,
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
function readJson<T>(root: string, rel: string): T | undefined {
  try {
    const text = readOwnFile(root, rel);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  } catch {
    return undefined; // half-written, hand-broken, not a file at all (a FIFO) or out of the workspace: counts as absent
  }
}

export function readWorkspaceSelection(root: string): WorkspaceSelection | undefined {
  const sel = readJson<WorkspaceSelection>(root, `${SESSIONS_DIR}/${WORKSPACE_SELECTION}`);
  return sel && (typeof sel.intent === "string" || sel.intent === null) ? sel : undefined;
}

export function writeWorkspaceSelection(root: string, intent: string | null, by: string, now = new Date()): WorkspaceSelection {
  const sel: WorkspaceSelection = { intent, selectedAt: now.toISOString(), by };
  ensureSessionsDir(root);
  writeOwnFile(root, `${SESSIONS_DIR}/${WORKSPACE_SELECTION}`, `${JSON.stringify(sel, null, 2)}\n`);
  return sel;
}

export function readSession(root: string, id: string): SessionRecord | undefined {
  const current = asSession(readJson(root, `${SESSIONS_DIR}/${sessionFileName(id)}`));
  if (current) return current;
  // a session that began before an upgrade has its file under the earlier name until it writes the new one
  const legacy = legacySessionFileName(id);
  const earlier = legacy === undefined ? undefined : asSession(readJson(root, `${SESSIONS_DIR}/${legacy}`));
  return earlier?.id === id ? earlier : undefined;
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
