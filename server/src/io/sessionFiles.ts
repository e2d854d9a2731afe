/** The session files under `.orchestration/.sessions/`: one per editor server or agent session, and `workspace.json`. */
import { existsSync, mkdirSync, readdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { asSession, isPrunable, sessionFileName, WORKSPACE_SELECTION, type SessionRecord, type WorkspaceSelection } from "../engine/sessions";
import { SESSIONS_DIR } from "../engine/workspaceFiles";
import { writeFileAtomic } from "./atomicWrite";
import { readOptional } from "./optionalFile";

const sessionsDir = (root: string) => join(root, SESSIONS_DIR);

function ensureSessionsDir(root: string): string {
  const dir = sessionsDir(root);
  mkdirSync(dir, { recursive: true });
  // The folder ignores itself so that session files never end up in a commit.
  const gitignore = join(dir, ".gitignore");
  if (!existsSync(gitignore)) writeFileSync(gitignore, "*\n");
  return dir;
}

function readJson<T>(path: string): T | undefined {
  const text = readOptional(path);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined; // a half-written or hand-broken file counts as absent; the next write replaces it
  }
}

export function readWorkspaceSelection(root: string): WorkspaceSelection | undefined {
  const sel = readJson<WorkspaceSelection>(join(sessionsDir(root), WORKSPACE_SELECTION));
  return sel && (typeof sel.intent === "string" || sel.intent === null) ? sel : undefined;
}

export function writeWorkspaceSelection(root: string, intent: string | null, by: string, now = new Date()): WorkspaceSelection {
  const sel: WorkspaceSelection = { intent, selectedAt: now.toISOString(), by };
  writeFileAtomic(join(ensureSessionsDir(root), WORKSPACE_SELECTION), `${JSON.stringify(sel, null, 2)}\n`);
  return sel;
}

export function readSession(root: string, id: string): SessionRecord | undefined {
  return asSession(readJson(join(sessionsDir(root), sessionFileName(id))));
}

export function writeSession(root: string, record: SessionRecord): void {
  writeFileAtomic(join(ensureSessionsDir(root), sessionFileName(record.id)), `${JSON.stringify(record, null, 2)}\n`, { durable: false });
}

export function removeSession(root: string, id: string): void {
  try {
    unlinkSync(join(sessionsDir(root), sessionFileName(id)));
  } catch {
    /* already gone */
  }
}

export function listSessions(root: string): SessionRecord[] {
  let names: string[];
  try {
    names = readdirSync(sessionsDir(root));
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith(".json") && n !== WORKSPACE_SELECTION)
    .map((n) => asSession(readJson(join(sessionsDir(root), n))))
    .filter((s): s is SessionRecord => !!s);
}

/** Removes session files whose heartbeat stopped a day ago or more (agents that never sent SessionEnd). */
export function pruneDeadSessions(root: string, now = Date.now()): void {
  for (const s of listSessions(root)) if (isPrunable(s, now)) removeSession(root, s.id);
}

