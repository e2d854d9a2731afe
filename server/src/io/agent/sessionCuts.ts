/**
 * Where an agent session's cuts wait for their paste (engine/agent/cuts.ts), and its pastes for their cut
 * (engine/agent/pastes.ts): one small JSON file per session under `.orchestration/.sessions/cuts/`, ignored
 * by git with the rest of the sessions folder. Written by a post hook whose change removed or inserted a
 * block; read by every post hook of the workspace while fresh (a refactor may span two sessions: the agent
 * restarted between the cut and the paste); removed an hour after its last write. Two hooks writing one file
 * at the same moment may lose a cut or a paste: the moved block is then recorded as the agent's own lines, as
 * without this file, never as someone else's.
 */
import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { copiedAlong, joinMoved, type WholeSource } from "../../engine/agent/copies";
import {
  CUT_TTL_MS,
  MAX_CUT_LINES,
  cutLess,
  cutOf,
  cutSources,
  keepCuts,
  leftBehind,
  parseCuts,
  pastedFromCuts,
  removedAll,
  type Cut,
} from "../../engine/agent/cuts";
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
  return readBlocksFile(root, cutsFile(sessionId));
}

function readBlocksFile(root: string, file: string): SessionBlocks {
  try {
    const text = readOwnFile(root, file);
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

function writeBlocksFile(root: string, file: string, blocks: SessionBlocks): void {
  try {
    ensureSessionsDir(root); // ignored by git, so a shell command's snapshot never sees the blocks either
    ensureOwnDir(root, CUTS_DIR);
    writeOwnFile(root, file, JSON.stringify(blocks), { durable: false });
  } catch {
    /* a cut or paste not kept only means a later move is recorded as the agent's own lines */
  }
}

/**
 * The most other sessions whose blocks a post hook reads, the most recently written first: the sessions of
 * one workspace within an hour are few, and each file is bounded (`MAX_CUTS`, `MAX_CUT_LINES`).
 */
export const MAX_OTHER_SESSIONS = 8;

/** Another session's kept blocks, and the file they are kept in (`.orchestration/.sessions/cuts/…`). */
interface OtherSession {
  file: string;
  blocks: SessionBlocks;
}

/** The fresh blocks files of sessions other than `sessionId`, the most recently written first. */
function otherSessions(root: string, sessionId: string, now: number): OtherSession[] {
  const own = cutsFile(sessionId);
  let names: string[];
  try {
    names = readdirSync(join(root, CUTS_DIR));
  } catch {
    return [];
  }
  const fresh: { file: string; at: number }[] = [];
  for (const n of names) {
    const file = `${CUTS_DIR}/${n}`;
    if (file === own || !/^[0-9a-f]{32}\.json$/.test(n)) continue;
    try {
      const at = statSync(join(root, file)).mtimeMs;
      if (now - at < CUT_TTL_MS) fresh.push({ file, at });
    } catch {
      /* gone already */
    }
  }
  fresh.sort((a, b) => b.at - a.at);
  return fresh.slice(0, MAX_OTHER_SESSIONS).map(({ file }) => ({ file, blocks: readBlocksFile(root, file) }));
}

/**
 * At a session's end: the blocks files of every session last written more than an hour ago. The session's
 * own file stays while it is fresh: an agent restarted after its cut pastes the block in a new session.
 */
export function removeSessionCuts(root: string, _sessionId: string, now = Date.now()): void {
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
  /** The blocks file of the other session that made the paste; absent: this session's own. */
  session?: string;
}

/** One post hook's view of its session's cuts and pastes. */
export interface SessionPastes {
  /** Lines of a write (`after`, changed from `before` by `change`) pasted from blocks cut elsewhere. */
  movedInto(path: string, before: string | null, after: string, change: LineChange): MovedLines[];
  /**
   * The earlier pastes into other files (this session's, then other fresh sessions') that these changes'
   * cuts claim: each such file still holds exactly the content the paste left, and no other record of it
   * came since.
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
 * The session's cuts and pastes as a post hook uses them, with those other fresh sessions of the workspace
 * kept (a refactor the agent restarted in the middle of: the cut in one session, the paste in the next).
 * `sameCall`: the same tool call's other files, whose removed blocks a paste may take (`callCuts`).
 */
export function sessionPastes(root: string, sessionId: string, ledger: LedgerView, now: number, sameCall: readonly CallChange[] = []): SessionPastes {
  return new PostHookBlocks(root, sessionId, ledger, now, sameCall);
}

/** One post hook's reading of the sessions' blocks files, and of the files they name (each read once). */
class PostHookBlocks implements SessionPastes {
  private readonly own: SessionBlocks;
  private readonly others: OtherSession[];
  /** This session's cuts first, then the other sessions' newest within the same bounds as one session's. */
  private readonly kept: SessionBlocks;
  private readonly pasteCandidates: { paste: Paste; session: string | undefined }[];
  private readonly callBlocks: Cut[];
  private readonly callHashes: string[];
  /** Workspace files read in this hook, by path: the tool wrote them before the hook ran, and nothing here does. */
  private readonly contents = new Map<string, string | undefined>();

  constructor(
    private readonly root: string,
    private readonly sessionId: string,
    private readonly ledger: LedgerView,
    private readonly now: number,
    private readonly sameCall: readonly CallChange[],
  ) {
    this.own = readSessionBlocks(root, sessionId);
    this.others = otherSessions(root, sessionId, now);
    const otherCuts = keepCuts(
      this.others.flatMap((o) => o.blocks.cuts).sort((x, y) => y.at - x.at),
      [],
      now,
    );
    this.kept = { cuts: [...this.own.cuts, ...otherCuts], pastes: this.own.pastes };
    this.pasteCandidates = [
      ...this.own.pastes.map((paste) => ({ paste, session: undefined })),
      ...this.others.flatMap((o) => o.blocks.pastes.map((paste) => ({ paste, session: o.file }))),
    ];
    this.callBlocks = callCuts(sameCall, now);
    this.callHashes = sameCall.map((c) => fileHash(c.before));
  }

  movedInto(path: string, before: string | null, after: string, change: LineChange): MovedLines[] {
    const sources = cutSources([...this.callBlocks, ...this.kept.cuts], path, this.now, this.pinned);
    const paths = new Set(sources.map((s) => s.path));
    const keptBy = [...this.callBlocks, ...this.kept.cuts].flatMap((c) => (paths.has(c.path) ? (leftBehind(c) ?? []) : []));
    const taken = pastedFromCuts(path, before, after, change, sources, this.heldNow(sources), keptBy);
    if (!taken.length) return taken;
    const own = before === null || before === "" ? undefined : { path, hash: "", lines: textLines(before) };
    return joinMoved(taken, copiedAlong(after === "" ? [] : textLines(after), changedSpans(change), taken, this.wholeNow, own));
  }

  claimedBack(changes: readonly HookChange[]): ClaimedPaste[] {
    const written = new Set(changes.map((c) => c.path));
    const candidates = this.pasteCandidates.filter(({ paste: p }) => !written.has(p.path) && this.ledger.newest(p.path) === p.hash);
    const out: ClaimedPaste[] = [];
    if (!candidates.length) return out;
    // the cut file's content before this call, whose record pins it (cutsOf keeps only such cuts)
    const wholeBefore: WholeSource = (path, cutHash) => {
      const c = changes.find((x) => x.path === path && typeof x.before === "string" && fileHash(x.before) === cutHash);
      return c && typeof c.before === "string" ? wholeSource(path, cutHash, c.before) : undefined;
    };
    const pastes = candidates.map((c) => c.paste);
    for (const { paste, movedIn } of pastedBack(pastes, this.cutsOf(changes), this.now, this.pinned, wholeBefore)) {
      // one claim per file: a path two sessions pasted into holds one content, and the newest record pins it
      if (out.some((o) => o.path === paste.path)) continue;
      const content = this.contentOf(paste.path);
      const session = candidates.find((c) => c.paste === paste)!.session;
      // the file changed since the paste (a person's unrecorded save, a tool outside the hooks): not matched
      if (content !== undefined && fileHash(content) === paste.hash) out.push({ path: paste.path, content, movedIn, ...(session ? { session } : {}) });
    }
    return out;
  }

  keep(changes: readonly HookChange[], claimed: readonly ClaimedPaste[]): void {
    // a cut that gave a paste back has found its paste: those lines are offered no more. A cut a paste took
    // stays offered: the same block pasted again elsewhere is a copy of moved lines, which keep their owners
    const given = claimed.flatMap((c) => c.movedIn);
    const cuts = this.cutsOf(changes).flatMap((c) => cutLess(c, given) ?? []);
    const pastes = changes.flatMap((c) => {
      if (c.after === null || !c.change) return [];
      const earlier = this.kept.pastes.find((p) => p.path === c.path && c.before !== null && p.hash === fileHash(c.before));
      return pasteOf(c.path, fileHash(c.after), c.before, c.after, c.change, earlier, this.now) ?? [];
    });
    const written = changes.map((c) => c.path);
    const mine = claimed.filter((c) => !c.session);
    const stale = this.own.pastes.some((p) => written.includes(p.path));
    if (cuts.length || pastes.length || mine.length || stale) {
      const rest = lessClaimed(this.own.pastes, mine);
      writeBlocksFile(this.root, cutsFile(this.sessionId), {
        cuts: keepCuts(this.own.cuts, cuts, this.now),
        pastes: keepPastes(rest, pastes, this.now, written),
      });
    }
    // another session's paste claimed here is given back once: that session's file keeps the rest
    for (const o of this.others) {
      const theirClaims = claimed.filter((c) => c.session === o.file);
      if (!theirClaims.length) continue;
      const theirs = readBlocksFile(this.root, o.file);
      writeBlocksFile(this.root, o.file, { cuts: theirs.cuts, pastes: lessClaimed(theirs.pastes, theirClaims) });
    }
  }

  private readonly pinned = (p: string, h: string): boolean => this.ledger.pinned(p, h);

  /**
   * A file a paste took a cut block from, whole, for the blocks the paste copied from it: its content before
   * the cut (as git compares a commit with its parent) when this call made it or the session kept it, else
   * its content now when the newest record pins it.
   */
  private readonly wholeNow: WholeSource = (path, cutHash) => {
    const call = this.sameCall.find((c, i) => c.path === path && this.callHashes[i] === cutHash);
    if (call) return wholeSource(path, cutHash, call.before);
    const cut = this.kept.cuts.find((c) => c.path === path && c.hash === cutHash && c.whole);
    if (cut?.whole && this.pinned(path, cutHash)) return { path, hash: cutHash, lines: cut.whole };
    return this.pinnedNow(path);
  };

  /** The cut files as they are now, where the newest record pins that content: a block one still holds is not taken from an older cut of it. */
  private heldNow(sources: readonly BlockSource[]): BlockSource[] {
    return [...new Set(sources.map((s) => s.path))].flatMap((p) => this.pinnedNow(p) ?? []);
  }

  /** `path` whole as it is now, when the newest record of it pins that content. */
  private pinnedNow(path: string): BlockSource | undefined {
    const content = this.contentOf(path);
    if (content === undefined) return undefined;
    const hash = fileHash(content);
    return this.ledger.newest(path) === hash ? wholeSource(path, hash, content) : undefined;
  }

  /** The blocks these changes removed, from content a record pins (so a reader finds their owners there). */
  private cutsOf(changes: readonly HookChange[]): Cut[] {
    const removed = changes.flatMap((c) =>
      typeof c.before === "string" ? [{ path: c.path, before: c.before, change: c.change ?? removedAll(c.before) }] : [],
    );
    return callCuts(removed, this.now).filter((cut) => this.pinned(cut.path, cut.hash));
  }

  private contentOf(path: string): string | undefined {
    if (!this.contents.has(path)) this.contents.set(path, readSessionPath(this.root, path));
    return this.contents.get(path);
  }
}

/** `pastes` without the lines `claimed` gave back (a paste is claimed once). */
function lessClaimed(pastes: readonly Paste[], claimed: readonly ClaimedPaste[]): Paste[] {
  return pastes.flatMap((p) => {
    const c = claimed.find((x) => x.path === p.path);
    return c ? (pasteLess(p, c.movedIn) ?? []) : [p];
  });
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
