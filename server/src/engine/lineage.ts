/**
 * Which earlier paths a path's content comes from (docs/LEDGER.md "Renames, moves and copies"): the one rule
 * that lets a line's owner follow its content across a rename, a move or a copy, whoever made it and however
 * intent-lsp learnt of it.
 *
 * Records chain by content, not by path: a record's `pre_hash` is the hash of the content it started from.
 * So a path's content comes from another path when a record of that other path pins (`post_hash`) the content
 * this path's own records start from, or, for a path no record of its own explains, its current content. A
 * rename (`git mv`, `mv`, the editor's file operations) leaves the content as it was, so the old path's
 * records pin it; a move recorded with changes (an agent's `*** Move to:`) starts from the old content. A
 * record may also name the path it moved from (`moved_from`), which links the paths even where no record of
 * the old path pins its content, and git may report a rename (`git log --follow`); both are given as
 * `namedSources`.
 *
 * The paths found are followed in turn (a file renamed twice), up to `MAX_SOURCE_PATHS`. Their entries keep
 * their own `path`: a reader tells that a line came from elsewhere by its entry's path.
 */
import { normalizeLine, splitLines } from "./hashing";
import type { Segment, Span } from "./lineChange";
import type { GitNaming, TraceEntry } from "./ledger/read";

/**
 * The most earlier paths followed for one path: a chain longer than this is cut, never guessed. A long-lived
 * file gathers paths from its renames and from every file a block was moved or copied in from (and their
 * renames), so the bound is for a runaway ledger, not for an ordinary history.
 */
export const MAX_SOURCE_PATHS = 64;

/** What the rule needs from the ledger: a path's entries, and the paths whose records pin a content. */
export interface PathRecords {
  entriesFor(path: string): readonly TraceEntry[];
  /** Paths with a record whose `post_hash` is exactly `hash`. */
  pathsPinning(hash: string): readonly string[];
}

/**
 * The entries of the earlier paths `path`'s content comes from (none when it comes from nowhere else).
 * `own`: the path's own entries; `currentHash`: the hash of its content at hand (`contentHash` of its lines),
 * when a caller has it (or how to compute it: asked only when `own` is empty); `namedSources`: earlier paths git renamed this one from; `blockSources`: files git
 * says this one may hold blocks of (split from them in the commit that added it). The entries of both are
 * marked `gitNamed`.
 */
export function sourceEntries(
  path: string,
  own: readonly TraceEntry[],
  currentHash: string | undefined | (() => string | undefined),
  records: PathRecords,
  namedSources: readonly string[] = [],
  blockSources: readonly string[] = [],
  // Stryker disable next-line ArrayDeclaration: equivalent: an element that is not a version has no `from`, which no path read equals, so it adds no entry
  versions: readonly RenamedVersion[] = [],
): TraceEntry[] {
  const seen = new Set<string>([path]);
  const out: TraceEntry[] = [];
  const pending: { path: string; named: GitNaming | undefined }[] = [];
  const follow = (p: string, named: GitNaming | undefined) => {
    if (seen.has(p) || seen.size > MAX_SOURCE_PATHS) return;
    seen.add(p);
    pending.push({ path: p, named });
  };
  const followFrom = (entries: readonly TraceEntry[], hash: string | undefined, named: GitNaming | undefined) => {
    for (const h of startHashes(entries, hash)) for (const p of records.pathsPinning(h)) follow(p, named);
    for (const e of entries) {
      if (e.movedFrom) follow(e.movedFrom, named);
      // a file a record took lines from serves that record's `moved_lines`, nothing more
      for (const m of e.movedIn ?? []) follow(m.from, undefined);
    }
  };
  for (const p of namedSources) follow(p, "renamed");
  // the content's hash matters only to a path with no record of its own: a million-line file is not hashed
  // again each time the ledger changes
  followFrom(own, own.length > 0 ? undefined : typeof currentHash === "function" ? currentHash() : currentHash, undefined);
  for (const p of blockSources) follow(p, "split");
  while (pending.length) {
    const { path: p, named } = pending.shift()!;
    const entries = records.entriesFor(p);
    for (const e of entries) out.push(named ? { ...e, borrowed: true, gitNamed: named } : borrowed(e));
    followFrom(entries, undefined, named);
  }
  // a rename whose old path's records were read: git's own version of the renamed content, which a record of
  // the new path may start from (engine/attribution.ts turns it into the rename's line map). Only for content
  // no record pins: where one does, its line map and moved lines say where every line came from, and git's
  // guess at the same content (a copy scored by similarity) must not replace them
  // a record with no `post_hash` adds null or undefined, which no version's hash (a string) equals
  const recorded = new Set<string | null | undefined>();
  for (const e of own) recorded.add(e.postHash);
  for (const e of out) recorded.add(e.postHash);
  for (const v of versions) {
    if (recorded.has(v.hash)) continue;
    // `seen` holds the path itself and every path read
    if (seen.has(v.from) && seen.has(v.path)) out.push(renameEntry(v));
  }
  return out;
}

/**
 * The entry that stands for a rename nobody recorded: git's content after it (`postHash`), no line of it
 * claimed; `renamedFrom` says which content it came from, as git's diff of the rename commit reads it.
 */
function renameEntry(v: RenamedVersion): TraceEntry {
  return {
    recordId: `git:${v.sha}`,
    line: 0,
    timestamp: "",
    path: v.path,
    startLine: 0,
    endLine: 0,
    contributor: { type: "unknown" },
    dialect: "spec",
    postHash: v.hash,
    borrowed: true,
    renamedFrom: { path: v.from, lineHashes: v.lineHashes },
  };
}

/** One file a commit changed, as `git log --name-status -M` names it; `from`: a rename's or copy's source. */
export interface GitChange {
  status: "A" | "M" | "D" | "T" | "R" | "C";
  path: string;
  from?: string;
}

/** A commit and the files it changed. */
export interface GitCommit {
  sha: string;
  /** How many parents the commit has, when the log was asked for them (0: a root commit). */
  parents?: number;
  changes: GitChange[];
}

/**
 * The earlier paths git's history (`commits`, newest first) names for `path`'s content: each rename or copy
 * going back (a file renamed twice names both), then, for the commit that added it, the files that commit
 * changed or deleted (a block cut from them into this new file, which `git blame -C` looks for in the same
 * commit). Up to `MAX_SOURCE_PATHS`; which of their lines the path keeps is the attribution's rule: a
 * renamed file's lines as a diff of the two contents matches them, a split file's only as whole blocks.
 * A commit that adds the file and changes more than `MAX_SPLIT_SIBLINGS` others names none: across a wide
 * change (a large refactoring commit, a whole branch's diff) "split from" would name files at random and
 * make every added file read dozens of others; those lines stay as their own records say.
 */
export function namedByGit(path: string, commits: readonly GitCommit[] | GitHistory): GitNamed {
  const history = commits instanceof GitHistory ? commits : new GitHistory(commits);
  const named: GitNamed = { renamed: [], split: [] };
  const add = (list: string[], p: string) => {
    const known = named.renamed.includes(p) || named.split.includes(p);
    if (p !== path && !known && named.renamed.length + named.split.length < MAX_SOURCE_PATHS) list.push(p);
  };
  const renames: GitRename[] = [];
  let name = path;
  for (let next = history.nextChange(name, 0); next; next = history.nextChange(name, next.at + 1)) {
    const own = next.change;
    const commit = history.commits[next.at]!;
    if ((own.status === "R" || own.status === "C") && own.from !== undefined) {
      add(named.renamed, own.from);
      renames.push({ sha: commit.sha, from: own.from, path: name });
      name = own.from;
    } else if (own.status === "A") {
      if (commit.changes.length - 1 > MAX_SPLIT_SIBLINGS) break;
      // the added file itself is "A": neither branch names it
      for (const c of commit.changes) {
        if (c.status === "M" || c.status === "D") add(named.split, c.path);
        else if (c.status === "R" && c.from !== undefined) add(named.split, c.from);
      }
      break;
    }
  }
  return renames.length ? { ...named, renames } : named;
}

/** The most other files a commit that adds a file may change for them to be named as what it was split from. */
export const MAX_SPLIT_SIBLINGS = 16;

/**
 * Commits (newest first) with their changes by path, built once: `intent check` asks `namedByGit` about every
 * file a branch changed, and each question then reads only the commits that changed the path it follows,
 * not every commit of the branch.
 */
export class GitHistory {
  /** Per path, the places in `commits` (ascending: newest first) of the commits that changed it, and how. */
  private readonly byPath = new Map<string, { at: number; change: GitChange }[]>();

  constructor(readonly commits: readonly GitCommit[]) {
    commits.forEach((commit, at) => {
      // a path a commit names twice: its last change counts
      const own = new Map<string, GitChange>();
      for (const c of commit.changes) own.set(c.path, c);
      for (const [path, change] of own) {
        const list = this.byPath.get(path);
        if (list) list.push({ at, change });
        else this.byPath.set(path, [{ at, change }]);
      }
    });
  }

  /** The newest commit at place `from` or older that changed `path`, and its change there. */
  nextChange(path: string, from: number): { at: number; change: GitChange } | undefined {
    const list = this.byPath.get(path);
    if (!list) return undefined;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.at < from) lo = mid + 1;
      else hi = mid;
    }
    return list[lo];
  }
}

/** Earlier paths git names: renamed (or copied) from, read whole; split from, read for whole blocks only. */
export interface GitNamed {
  renamed: string[];
  split: string[];
  /** Each rename git's history shows, newest first: the commit, and the path before and after it. */
  renames?: GitRename[];
  /** The content a rename commit gave the renamed path, where git could show it (io/gitSources.ts). */
  versions?: RenamedVersion[];
}

/** A commit that renamed (or copied) `from` to `path`. */
export interface GitRename {
  sha: string;
  from: string;
  path: string;
}

/** `path`'s content as the commit that renamed it from `from` left it: its hash and its lines' hashes. */
export interface RenamedVersion extends GitRename {
  hash: string;
  lineHashes: string[];
}

/** An entry of another path, marked as read for this one (a copy: the index's cached entries stay as they are). */
export function borrowed(e: TraceEntry): TraceEntry {
  return e.borrowed ? e : { ...e, borrowed: true };
}

/**
 * The content a path's history starts from when it came from elsewhere: the `pre_hash` of its oldest record,
 * unless one of its own records pins it; for a path with no record of its own, `current`. One content, so
 * that a file with thousands of records costs one lookup (records of other tools that do not chain would
 * otherwise each start a chain).
 */
export function startHashes(entries: readonly TraceEntry[], current: string | undefined): string[] {
  if (!entries.length) return current === undefined ? [] : [current];
  let oldest: TraceEntry | undefined;
  for (const e of entries) if (!oldest || e.timestamp < oldest.timestamp || (e.timestamp === oldest.timestamp && e.line < oldest.line)) oldest = e;
  const start = oldest!.preHash;
  if (typeof start !== "string") return [];
  for (const e of entries) if (e.postHash === start) return [];
  return [start];
}

/** A file one act created (`content`) or deleted (`before`). */
export interface ActFile {
  path: string;
  text: string;
}

/** How much of a deleted file's lines a created file must hold to be its move (git's default `-M` is 50%). */
export const MOVE_SIMILARITY = 0.5;

/**
 * Which files one act (a shell command, a move tool, a patch, the editor's rename) moved: each created file
 * paired with the deleted file whose lines it shares most, at least `MOVE_SIMILARITY` of the larger of the
 * two (lines compared as the hashes see them); an identical content first. Each deleted file pairs once.
 * Returns created path → deleted path.
 */
export function pairMoves(created: readonly ActFile[], deleted: readonly ActFile[]): Map<string, string> {
  const pairs = new Map<string, string>();
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a fast path; with either side empty the loops below score no pair
  if (!created.length || !deleted.length) return pairs;
  const taken = new Set<string>();
  const scored: { from: string; to: string; score: number }[] = [];
  for (const c of created) {
    for (const d of deleted) {
      const score = c.text === d.text ? 2 : similarity(c.text, d.text);
      if (score >= MOVE_SIMILARITY) scored.push({ from: d.path, to: c.path, score });
    }
  }
  // created files equally close to one deleted file take it in the order of their paths, however they are given
  const rank = new Map(
    created
      .map((c) => c.path)
      .sort()
      .map((p, i) => [p, i]),
  );
  scored.sort((a, b) => b.score - a.score || rank.get(a.to)! - rank.get(b.to)!);
  for (const s of scored) {
    if (pairs.has(s.to) || taken.has(s.from)) continue;
    pairs.set(s.to, s.from);
    taken.add(s.from);
  }
  return pairs;
}

/** Lines two texts share (as multisets, blank lines aside) over the larger one's non-blank line count. */
function similarity(a: string, b: string): number {
  const count = (text: string) => {
    const m = new Map<string, number>();
    let n = 0;
    for (const line of splitLines(text)) {
      const l = normalizeLine(line).trim();
      if (!l) continue;
      m.set(l, (m.get(l) ?? 0) + 1);
      n++;
    }
    return { m, n };
  };
  const x = count(a);
  const y = count(b);
  const larger = Math.max(x.n, y.n);
  // Stryker disable next-line ConditionalExpression: equivalent: two texts of blank lines only would score 0 / 0 (NaN), which no `>=` takes as a move either
  if (larger === 0) return 0;
  let shared = 0;
  for (const [l, k] of x.m) shared += Math.min(k, y.m.get(l) ?? 0);
  return shared / larger;
}

/** Lines a save took from another file's content (cut or copied there, pasted here): `moved_lines`. */
export interface MovedLines {
  from: string;
  /** The whole-file hash of the other file's content the lines are numbered in. */
  preHash: string;
  /** 0-based `[oldStart, newStart, length]` runs: `oldStart` in that content, `newStart` in this one. */
  runs: Segment[];
}

/**
 * Another file's content a pasted block may come from: the content a record of it pins, and its path.
 * A line left undefined is not offered (a session's cut offers only the lines it removed).
 */
export interface BlockSource {
  path: string;
  hash: string;
  lines: readonly (string | undefined)[];
}

/** A block shorter than this is not taken as moved (one line that happens to match proves little). */
export const MIN_MOVED_LINES = 2;
/**
 * A block moved or copied between files holds at least this many letters and digits: git's own copy score
 * (`git blame -C` scores a block by its alphanumeric characters, 40 by default), so a `}` with a blank line,
 * or a reST directive with the blank line after it, is new text where it lands.
 */
export const MIN_BLOCK_SCORE = 40;

/** A line's letters and digits (ASCII), as git scores a block. */
export function lineScore(line: string): number {
  let n = 0;
  // Stryker disable next-line EqualityOperator: equivalent: charCodeAt past the end is NaN, which no range below holds
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) n++;
  }
  return n;
}

/** Whether lines found in a row in another file are enough to be taken as a block moved from there. */
export function isMovedBlock(length: number, score: number): boolean {
  return length >= MIN_MOVED_LINES && score >= MIN_BLOCK_SCORE;
}

/**
 * The blocks of a save's new lines (`inserted`, 0-based spans of `lines`) found whole in another file's
 * recorded content (`sources`, in order of preference): cut there and pasted here, or copied. As `git blame
 * -C` does, such lines keep the author they had there; the save that pasted them is their provenance.
 * Lines compare as the hashes see them (trailing blanks and line endings aside); a block is at least
 * `MIN_MOVED_LINES` lines scoring `MIN_BLOCK_SCORE`, matched greedily from the top of each span.
 * `own`: the file's own content before the save. A block found there is moved or copied within the file,
 * and belongs to whoever moved it (as `git blame` without `-M`), even when another file holds it too (the
 * same file still open under the path it was renamed from, a copy made earlier).
 */
export function findMovedBlocks(lines: readonly string[], inserted: readonly Span[], sources: readonly BlockSource[], own?: BlockSource): MovedLines[] {
  // Stryker disable next-line ConditionalExpression: a fast path; with no other file every block found is the file's own, and those are dropped at the end
  if (!sources.length) return [];
  const index = (own ? [own, ...sources] : sources).map((src) => {
    const at = new Map<string, number[]>();
    const norm = src.lines.map((l) => (l === undefined ? undefined : normalizeLine(l)));
    norm.forEach((key, i) => {
      // Stryker disable next-line ConditionalExpression: equivalent: lines are looked up by their normalized text, a string, so an entry under undefined is never read
      if (key === undefined) return;
      const list = at.get(key);
      if (list) list.push(i);
      else at.set(key, [i]);
    });
    return { src, at, norm };
  });
  const found = new Map<BlockSource, Segment[]>();
  for (const span of inserted) {
    let i = span.start;
    // Stryker disable next-line EqualityOperator: equivalent: a block starting at a span's last line has one line, under MIN_MOVED_LINES
    while (i <= span.end) {
      // Stryker disable next-line StringLiteral: unreachable defence: every caller's spans are of `lines` (changedSpans of the change that gave them, or a paste's blocks laid out by engine/agent/pastes.ts `spread`)
      const key = normalizeLine(lines[i] ?? "");
      let best: { src: BlockSource; oldStart: number; length: number } | undefined;
      for (const { src, at, norm } of index) {
        const starts = at.get(key);
        if (!starts) continue;
        for (const p of starts) {
          let n = 0;
          let score = 0;
          // a line past the source's end reads undefined, as a line it does not offer: the block ends there
          // Stryker disable next-line StringLiteral: unreachable defence: the span's lines are all of `lines`, as above
          while (i + n <= span.end && norm[p + n] === normalizeLine(lines[i + n] ?? "")) {
            score += lineScore(norm[p + n]!);
            n++;
          }
          if (isMovedBlock(n, score) && (!best || n > best.length)) best = { src, oldStart: p, length: n };
        }
      }
      if (!best) {
        i++;
        continue;
      }
      const runs = found.get(best.src) ?? [];
      runs.push({ oldStart: best.oldStart, newStart: i, length: best.length });
      found.set(best.src, runs);
      i += best.length;
    }
  }
  return [...found].filter(([src]) => src !== own).map(([src, runs]) => ({ from: src.path, preHash: src.hash, runs }));
}
