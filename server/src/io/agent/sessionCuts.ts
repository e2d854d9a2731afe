/**
 * Where an agent session's cuts wait for their paste (engine/agent/cuts.ts): one small JSON file per session
 * under `.orchestration/.sessions/cuts/`, ignored by git with the rest of the sessions folder. Written only by
 * a post hook whose change removed a block; read by every post hook of the session; removed when the session
 * ends. Two hooks of one session writing at the same moment may lose a cut: its paste is then recorded as
 * the agent's own lines, as without this file, never as someone else's.
 */
import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { CUT_TTL_MS, cutOf, cutSources, keepCuts, parseCuts, pastedFromCuts, type Cut } from "../../engine/agent/cuts";
import { fileHash } from "../../engine/hashing";
import type { LineChange } from "../../engine/lineChange";
import type { MovedLines } from "../../engine/lineage";
import { SESSIONS_DIR } from "../../engine/workspaceFiles";
import { ensureOwnDir, readOwnFile, removeOwnFile, writeOwnFile } from "../ownFiles";
import { ensureSessionsDir } from "../sessionFiles";

const CUTS_DIR = `${SESSIONS_DIR}/cuts`;

function cutsFile(sessionId: string): string {
  return `${CUTS_DIR}/${createHash("sha256").update(sessionId).digest("hex").slice(0, 32)}.json`;
}

/** The session's kept cuts, newest first; none when the file is absent or unreadable. */
export function readSessionCuts(root: string, sessionId: string): Cut[] {
  try {
    const text = readOwnFile(root, cutsFile(sessionId));
    return text === undefined ? [] : parseCuts(JSON.parse(text));
  } catch {
    return []; // half-written, hand-broken, not a regular file: no cut to paste from
  }
}

/** Adds `added` to the session's cuts (`kept`: what was read before), within the engine's bounds. */
export function noteSessionCuts(root: string, sessionId: string, kept: readonly Cut[], added: readonly Cut[], now: number): void {
  if (!added.length) return;
  try {
    ensureSessionsDir(root); // ignored by git, so a shell command's snapshot never sees the cuts either
    ensureOwnDir(root, CUTS_DIR);
    writeOwnFile(root, cutsFile(sessionId), JSON.stringify(keepCuts(kept, added, now)), { durable: false });
  } catch {
    /* a cut not kept only means a later paste is recorded as the agent's own lines */
  }
}

/** At a session's end: its cuts, and those of sessions that ended without saying so (older than the TTL). */
export function removeSessionCuts(root: string, sessionId: string, now = Date.now()): void {
  removeOwnFile(root, cutsFile(sessionId)); // false: none kept, or not ours to remove
  let names: string[];
  try {
    names = readdirSync(join(root, CUTS_DIR));
  } catch {
    return;
  }
  for (const n of names) {
    try {
      if (now - statSync(join(root, CUTS_DIR, n)).mtimeMs > CUT_TTL_MS) removeOwnFile(root, `${CUTS_DIR}/${n}`);
    } catch {
      /* gone already */
    }
  }
}

/** One post hook's view of its session's cuts: what a write pasted from them, and the cuts it made itself. */
export interface SessionPastes {
  /** Lines of a write (`after`, changed from `before` by `change`) pasted from blocks cut elsewhere. */
  movedInto(path: string, before: string | null, after: string, change: LineChange): MovedLines[];
  /** Keeps the blocks these changes removed (each file's content before it pinned by a record) for later writes. */
  keep(changes: readonly { path: string; before: string; change: LineChange }[]): void;
}

/**
 * The session's cuts as a post hook uses them. `pinned`: whether a record of a path pins a content (the
 * ledger as the hook read it); `callCuts`: blocks the same tool call removed from its other files.
 */
export function sessionPastes(
  root: string,
  sessionId: string,
  pinned: (path: string, hash: string) => boolean,
  now: number,
  callCuts: readonly Cut[] = [],
): SessionPastes {
  const kept = readSessionCuts(root, sessionId);
  return {
    movedInto: (path, before, after, change) => pastedFromCuts(path, before, after, change, cutSources([...callCuts, ...kept], path, now, pinned)),
    keep: (changes) => {
      const added = changes.flatMap((c) => {
        const cut = cutOf(c.path, fileHash(c.before), c.before, c.change, now);
        return cut && pinned(cut.path, cut.hash) ? [cut] : [];
      });
      noteSessionCuts(root, sessionId, kept, added, now);
    },
  };
}

/** The blocks each of a tool call's files lost in it, for its other files to paste (no ledger read needed). */
export function callCuts(changes: readonly { path: string; before: string; change: LineChange }[], now: number): Cut[] {
  return changes.flatMap((c) => cutOf(c.path, fileHash(c.before), c.before, c.change, now) ?? []);
}
