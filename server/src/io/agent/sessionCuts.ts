/**
 * Where an agent session's cuts wait for their paste (engine/agent/cuts.ts), and its pastes for their cut
 * (engine/agent/pastes.ts): one small JSON file per session under `.orchestration/.sessions/cuts/`, ignored
 * by git with the rest of the sessions folder. Written by a post hook whose change removed or inserted a
 * block; read by every post hook of the session; removed when the session ends. Two hooks of one session
 * writing at the same moment may lose a cut or a paste: the moved block is then recorded as the agent's own
 * lines, as without this file, never as someone else's.
 */
import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { copiedAlong, joinMoved, type WholeSource } from "../../engine/agent/copies";
import { CUT_TTL_MS, MAX_CUT_LINES, cutOf, cutSources, keepCuts, parseCuts, pastedFromCuts, removedAll, type Cut } from "../../engine/agent/cuts";
import { keepPastes, parsePastes, pastedBack, pasteLess, pasteOf, type Paste } from "../../engine/agent/pastes";
import { fileHash } from "../../engine/hashing";
import type { Verdict } from "../../engine/gate";
import { changedSpans, diffTexts, type LineChange } from "../../engine/lineChange";
import { textLines } from "../../engine/lines";
import type { FileWrite } from "../ledger/recordChange";
import type { BlockSource, MovedLines } from "../../engine/lineage";
import { SESSIONS_DIR } from "../../engine/workspaceFiles";
import { readOptional } from "../optionalFile";
import { realWorkspacePath } from "../realPath";
import { ensureOwnDir, readOwnFile, removeOwnFile, writeOwnFile } from "../ownFiles";
import { ensureSessionsDir } from "../sessionFiles";

const CUTS_DIR = `${SESSIONS_DIR}/cuts`;

function cutsFile(sessionId: string): string {
  return `${CUTS_DIR}/${createHash("sha256").update(sessionId).digest("hex").slice(0, 32)}.json`;
}

/** What a session keeps between its tool calls, newest first in each list. */
export interface SessionBlocks {
  cuts: Cut[];
  pastes: Paste[];
}

/** The session's kept cuts and pastes; none when the file is absent or unreadable. */
export function readSessionBlocks(root: string, sessionId: string): SessionBlocks {
  try {
    const text = readOwnFile(root, cutsFile(sessionId));
    if (text === undefined) return { cuts: [], pastes: [] };
    const raw = JSON.parse(text) as unknown;
    // a bare list is the cuts alone, as a session's hooks of an earlier version kept them
    if (Array.isArray(raw)) return { cuts: parseCuts(raw), pastes: [] };
    const o = raw as { cuts?: unknown; pastes?: unknown } | null;
    return { cuts: parseCuts(o?.cuts), pastes: parsePastes(o?.pastes) };
  } catch {
    return { cuts: [], pastes: [] }; // half-written, hand-broken, not a regular file: nothing to match against
  }
}

function writeSessionBlocks(root: string, sessionId: string, blocks: SessionBlocks): void {
  try {
    ensureSessionsDir(root); // ignored by git, so a shell command's snapshot never sees the blocks either
    ensureOwnDir(root, CUTS_DIR);
    writeOwnFile(root, cutsFile(sessionId), JSON.stringify(blocks), { durable: false });
  } catch {
    /* a cut or paste not kept only means a later move is recorded as the agent's own lines */
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

/** A change of one file a post hook records: the content before it (null: new) and after it (null: deleted). */
export interface HookChange {
  path: string;
  before: string | null;
  after: string | null;
  change: LineChange | undefined;
  /** The lines of `after` it took from cuts (`SessionPastes.movedInto`). */
  movedIn: readonly MovedLines[];
}

/** A file this session pasted into earlier, as it is now, and the lines of it a cut of this call claims. */
export interface ClaimedPaste {
  path: string;
  content: string;
  movedIn: MovedLines[];
}

/** One post hook's view of its session's cuts and pastes. */
export interface SessionPastes {
  /** Lines of a write (`after`, changed from `before` by `change`) pasted from blocks cut elsewhere. */
  movedInto(path: string, before: string | null, after: string, change: LineChange): MovedLines[];
  /**
   * The session's earlier pastes into other files that these changes' cuts claim: each such file still
   * holds exactly the content the paste left, and no other record of it came since.
   */
  claimedBack(changes: readonly HookChange[]): ClaimedPaste[];
  /** Keeps the blocks these changes removed and inserted for later writes; `claimed` are matched no more. */
  keep(changes: readonly HookChange[], claimed: readonly ClaimedPaste[]): void;
}

/** What the post hook knows of the ledger, as the session's blocks need it. */
export interface LedgerView {
  /** Whether a record of `path` pins this content. */
  pinned(path: string, hash: string): boolean;
  /** The content hash the newest record of `path` pins (null: deleted), or undefined when none does. */
  newest(path: string): string | null | undefined;
}

/** A file a tool call changed, as its other files may paste from it: its content before the call. */
export interface CallChange {
  path: string;
  before: string;
  change: LineChange;
}

/**
 * The session's cuts and pastes as a post hook uses them. `sameCall`: the same tool call's other files, whose
 * removed blocks a paste may take (`callCuts`).
 */
export function sessionPastes(root: string, sessionId: string, ledger: LedgerView, now: number, sameCall: readonly CallChange[] = []): SessionPastes {
  const kept = readSessionBlocks(root, sessionId);
  const pinned = (p: string, h: string) => ledger.pinned(p, h);
  const callBlocks = callCuts(sameCall, now);
  const callHashes = sameCall.map((c) => fileHash(c.before));
  // a file a paste took a cut block from, whole, for the blocks the paste copied from it: its content before
  // the cut (as git compares a commit with its parent) when this call made it or the session kept it, else
  // its content now when the newest record pins it
  const wholeNow: WholeSource = (path, cutHash) => {
    const call = sameCall.find((c, i) => c.path === path && callHashes[i] === cutHash);
    if (call) return wholeSource(path, cutHash, call.before);
    const cut = kept.cuts.find((c) => c.path === path && c.hash === cutHash && c.whole);
    if (cut?.whole && pinned(path, cutHash)) return { path, hash: cutHash, lines: cut.whole };
    const content = readSessionPath(root, path);
    if (content === undefined) return undefined;
    const hash = fileHash(content);
    return ledger.newest(path) === hash ? wholeSource(path, hash, content) : undefined;
  };
  // the blocks these changes removed, from content a record pins (so a reader finds their owners there)
  const cutsOf = (changes: readonly HookChange[]) =>
    callCuts(
      changes.flatMap((c) => (typeof c.before === "string" ? [{ path: c.path, before: c.before, change: c.change ?? removedAll(c.before) }] : [])),
      now,
    ).filter((cut) => pinned(cut.path, cut.hash));
  return {
    movedInto: (path, before, after, change) => {
      const taken = pastedFromCuts(path, before, after, change, cutSources([...callBlocks, ...kept.cuts], path, now, pinned));
      if (!taken.length) return taken;
      const own = before === null || before === "" ? undefined : { path, hash: "", lines: textLines(before) };
      return joinMoved(taken, copiedAlong(after === "" ? [] : textLines(after), changedSpans(change), taken, wholeNow, own));
    },
    claimedBack: (changes) => {
      const written = new Set(changes.map((c) => c.path));
      const candidates = kept.pastes.filter((p) => !written.has(p.path) && ledger.newest(p.path) === p.hash);
      const out: ClaimedPaste[] = [];
      if (!candidates.length) return out;
      // the cut file's content before this call, whose record pins it (cutsOf keeps only such cuts)
      const wholeBefore: WholeSource = (path, cutHash) => {
        const c = changes.find((x) => x.path === path && typeof x.before === "string" && fileHash(x.before) === cutHash);
        return c && typeof c.before === "string" ? wholeSource(path, cutHash, c.before) : undefined;
      };
      for (const { paste, movedIn } of pastedBack(candidates, cutsOf(changes), now, pinned, wholeBefore)) {
        const content = readSessionPath(root, paste.path);
        // the file changed since the paste (a person's unrecorded save, a tool outside the hooks): not matched
        if (content !== undefined && fileHash(content) === paste.hash) out.push({ path: paste.path, content, movedIn });
      }
      return out;
    },
    keep: (changes, claimed) => {
      const cuts = cutsOf(changes);
      const pastes = changes.flatMap((c) => {
        if (c.after === null || !c.change) return [];
        const earlier = kept.pastes.find((p) => p.path === c.path && c.before !== null && p.hash === fileHash(c.before));
        return pasteOf(c.path, fileHash(c.after), c.before, c.after, c.change, c.movedIn, earlier, now) ?? [];
      });
      const written = changes.map((c) => c.path);
      const stale = kept.pastes.some((p) => written.includes(p.path));
      if (!cuts.length && !pastes.length && !claimed.length && !stale) return;
      const rest = kept.pastes.flatMap((p) => {
        const c = claimed.find((x) => x.path === p.path);
        return c ? (pasteLess(p, c.movedIn) ?? []) : [p];
      });
      writeSessionBlocks(root, sessionId, { cuts: keepCuts(kept.cuts, cuts, now), pastes: keepPastes(rest, pastes, now, written) });
    },
  };
}

/**
 * A file the session pasted a block into before cutting it: its content unchanged, the block's lines in
 * `moved_lines` (docs/LEDGER.md "Renames, moves and copies"), in the record of the write that cut it.
 */
export function claimedWrite(c: ClaimedPaste, verdict: Verdict): FileWrite {
  return { path: c.path, before: c.content, content: c.content, change: diffTexts(c.content, c.content), movedIn: c.movedIn, verdict };
}

/** The ledger as a session's cuts and pastes ask it. */
export function ledgerView(ledger: { hasPostHash(path: string, hash: string): boolean; lastPostHash(path: string): string | null | undefined }): LedgerView {
  return { pinned: (p, h) => ledger.hasPostHash(p, h), newest: (p) => ledger.lastPostHash(p) };
}

/**
 * A file's content now (one the session pasted into, or one a paste copied from); undefined when it cannot
 * be read as a regular file, or when the path the session's file names is not where it leads (a link, `..`,
 * outside the workspace): that file is ours, but it is read back from disk, and a path that leaves the
 * workspace is never read.
 */
function readSessionPath(root: string, path: string): string | undefined {
  if (realWorkspacePath(root, path) !== path) return undefined;
  try {
    return readOptional(join(root, path));
  } catch {
    return undefined;
  }
}

/** A file's whole content as a block source; none past the cuts' line budget (a file that large is not read for copies). */
function wholeSource(path: string, hash: string, content: string): BlockSource | undefined {
  const lines = content === "" ? [] : textLines(content);
  return lines.length <= MAX_CUT_LINES ? { path, hash, lines } : undefined;
}

/** The blocks each of a tool call's files lost in it, for its other files to paste (no ledger read needed). */
export function callCuts(changes: readonly { path: string; before: string; change: LineChange }[], now: number): Cut[] {
  return changes.flatMap((c) => cutOf(c.path, fileHash(c.before), c.before, c.change, now) ?? []);
}
