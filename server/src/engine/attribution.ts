/**
 * "Who wrote this line, under which intent?" for a file's content, from the ledger alone: the one answer
 * the editor (for content it has not seen being written) and `intent blame` / `intent check` give.
 *
 * Records written by intent-lsp 0.2+ carry a line map (see `lineChange.ts`): which lines carried over from
 * the content before the write, which the writer changed. They form a chain, each record's `pre_hash` being
 * the previous one's `post_hash`, so the owner of every line is known exactly by replaying the maps from
 * the file's creation (or from the first record) to the content at hand: no guessing from content, whatever
 * the lines look like (blank, `}`, duplicated, reformatted, moved by an edit above).
 *
 * What the chain cannot explain is attributed by content (`contentAnchors.ts`): lines carried from content
 * no record pins (the file existed before the ledger, or someone changed it without recording), and files
 * whose records have no map (other tools, older intent-lsp). When the content at hand is not the end of
 * any chain (changed since the last record), the last recorded content's lines are matched to it by their
 * hashes: unchanged lines keep their owners, changed ones fall to content anchoring or stay untraced.
 */
import { lineHash } from "./hashing";
import { anchorByContent, TextHashes } from "./contentAnchors";
import { entryTime } from "./ledger/entryOrder";
import { splitLineHashes, type TraceEntry } from "./ledger/read";
import { isMovedBlock, lineScore } from "./lineage";
import { matchRegion, mergeSegments, type LineChange, type Segment } from "./lineChange";

/** How a line was matched to its entry. */
export type AnchorKind =
  /** the record's own range, carried to this line through the line maps of the records after it */
  | "carried"
  /** the recorded range, at its recorded position */
  | "range"
  /** the recorded range, found intact elsewhere in the file */
  | "moved"
  /** this line alone, by its per-line hash, after other lines of the range changed */
  | "line"
  /** a whole-file record whose hash matches the file */
  | "file"
  /** recorded position only; the record has no hash we can check */
  | "position";

export interface LineAttribution {
  entry: TraceEntry;
  /** The line's content is proven by a hash or a line map; false for position-only attribution. */
  exact: boolean;
  anchor: AnchorKind;
  /** The record that last changed this line's whitespace only (a formatter), keeping `entry` as its owner. */
  reformattedBy?: TraceEntry;
  /**
   * The record that moved the line's file here from another path (`moved_from`: a rename or move seen as it
   * happened), keeping `entry` as its owner. A line whose entry names another path without it came by
   * content (engine/lineage.ts).
   */
  movedBy?: TraceEntry;
}

export type Attributions = (LineAttribution | undefined)[];

/**
 * Attribution for each of `lines` (the file's current content split by `splitLines`); `entries` are the
 * ledger entries of this file, in any order.
 */
export function attribute(entries: readonly TraceEntry[], lines: readonly string[], knownHash?: string): Attributions {
  // a caller that knows the content's hash spares a whole-file hash (a million-line document's save)
  return settleByChain(entries, lines, new TextHashes(lines, knownHash)).complete();
}

/**
 * Attribution in two steps. The first (`settleByChain`) works out the owners the chain of records settles: a
 * settled line's owner is a record's own range carried through the line maps, so no older record can
 * change it. The second (`complete`) attributes the other lines by content (or leaves them without an
 * owner), which older records could still inform. A reader going through a file's records newest first
 * takes the first step for each batch it reads, stops once the lines it needs are settled, and takes the
 * second once, for the records read by then: the second is most of attribution's work.
 */
export class ChainOwners {
  private completed = false;

  constructor(
    private readonly entries: readonly TraceEntry[],
    private readonly lines: readonly string[],
    private readonly text: TextHashes,
    private readonly graph: RecordGraph,
    private readonly end: RecordStep | undefined,
    private readonly result: Attributions,
  ) {}

  /** Whether the chain settled line `index` (0-based); asked before `complete`. */
  settled(index: number): boolean {
    // after the second step, `result` holds content's owners too, which are not settled
    if (this.completed) throw new Error("ChainOwners.settled: asked after complete(); ask it before");
    return this.result[index] !== undefined;
  }

  /** The second step: every line's owner. It fills in the chain's owners, so it is taken once. */
  complete(): Attributions {
    if (this.completed) throw new Error("ChainOwners.complete: already completed; settle the entries again");
    this.completed = true;
    const { entries, lines, text, graph, end, result } = this;
    // a rename git's version linked into the chain already paired the old path's lines as git does: the lines
    // it left unpaired were changed by the rename, and are not matched again by content
    const chainEnd = end ?? graph.newest();
    if (graph.hasGitNamed()) fillFromGitNamed(graph, lines, result, chainEnd ? graph.renamesIn(chainEnd) : new Set());
    // another path's ranges are followed through the chain only, never re-anchored by content here
    anchorByContent(entries.some((e) => e.borrowed) ? entries.filter((e) => !e.borrowed) : entries, lines, result, text);
    return result;
  }
}

/** The first step of attribution (`ChainOwners`) of `entries` (the file's entries, any order) on `lines`. */
export function settleByChain(entries: readonly TraceEntry[], lines: readonly string[], text: TextHashes = new TextHashes(lines)): ChainOwners {
  const result: Attributions = new Array<LineAttribution | undefined>(lines.length).fill(undefined);
  const graph = RecordGraph.of(entries);
  const count = contentLineCount(lines);
  // the path's own record of this content when it has one: another path's record of the same content (the
  // file a move or copy took it from) does not know what the path's own records did with it
  const end = graph.newestPinning(text.fileHash(), undefined, entries.find((e) => !e.borrowed)?.path);
  if (end) {
    // a record pinning this content maps exactly its lines: one claiming another count is not replayed
    // (content anchoring below still reads its ranges)
    if (end.change.newCount === count) copyOwners(graph.replayTo(end), result, count);
  } else {
    const last = graph.newest();
    if (last) {
      const state = graph.replayTo(last);
      matchByLineHashes(state, lines, result);
    }
  }
  return new ChainOwners(entries, lines, text, graph, end, result);
}

/** Lines of text as records count them (`textLines`, and no line at all in an empty text), from `splitLines` output. */
export function contentLineCount(lines: readonly string[]): number {
  if (lines.length === 1 && lines[0] === "") return 0;
  return lines[lines.length - 1] === "" ? lines.length - 1 : lines.length;
}

// --- replaying line maps ------------------------------------------------------------------------------

/** Each line's owner and its line hash (when known) in one content; `undefined` owner: not known. */
export interface LineState {
  owners: Attributions;
  hashes: (string | undefined)[];
  /**
   * Set on the state of a content no record explains: its line count, every owner unknown. Its arrays are
   * then empty: a million-line file's first record would otherwise copy a million unknowns.
   */
  unknownLines?: number;
}

/** One record's write of one file, with its line map. */
export interface RecordStep {
  change: LineChange;
  /** The entries of this record for this file: its ranges, or one file-level entry when it has none. */
  entries: TraceEntry[];
  preHash: string | null | undefined;
  postHash: string | null | undefined;
  time: number;
  line: number;
}

/**
 * The state after one record, from the state before it: carried lines keep their owner (a reformatted one
 * notes who reformatted it), the record's ranges are its own. Undefined when the map does not fit the state
 * (the record was written against different content: the chain is broken here).
 */
export function applyStep(before: LineState, step: RecordStep, stateOf?: (hash: string, path: string) => LineState | undefined): LineState | undefined {
  const { change } = step;
  const owners: Attributions = new Array<LineAttribution | undefined>(change.newCount).fill(undefined);
  const hashes = new Array<string | undefined>(change.newCount).fill(undefined);
  const beforeCount = before.unknownLines ?? before.owners.length;
  for (const s of change.carried) {
    if (s.oldStart + s.length > beforeCount) return undefined;
    if (before.unknownLines !== undefined) continue; // unknown owners, as the new arrays hold already
    for (let k = 0; k < s.length; k++) {
      owners[s.newStart + k] = before.owners[s.oldStart + k];
      hashes[s.newStart + k] = before.hashes[s.oldStart + k];
    }
  }
  const recordEntry = step.entries[0]!;
  if (recordEntry.movedFrom !== undefined) {
    for (const s of change.carried) {
      for (let l = s.newStart; l < s.newStart + s.length; l++) {
        const owner = owners[l];
        if (owner && owner.entry.path !== recordEntry.path) owners[l] = { ...owner, movedBy: recordEntry };
      }
    }
  }
  // lines cut or copied from another file keep the owner they had there; this record moved them
  for (const m of recordEntry.movedIn ?? []) {
    const source = stateOf?.(m.preHash, m.from);
    for (const r of m.runs) {
      if (!source) {
        // the other file's records are not at hand (a reader that has read only this path's so far): the
        // lines' owners are not known here, whatever a record before this one said of them
        owners.fill(undefined, r.newStart, Math.min(r.newStart + r.length, change.newCount));
        hashes.fill(undefined, r.newStart, Math.min(r.newStart + r.length, change.newCount));
        continue;
      }
      for (let k = 0; k < r.length && r.newStart + k < change.newCount; k++) {
        const owner = source.owners[r.oldStart + k];
        // git's rename is no recorded move: nobody is named as having moved the lines
        owners[r.newStart + k] = owner && (recordEntry.renamedFrom ? owner : { ...owner, movedBy: recordEntry });
        hashes[r.newStart + k] = source.hashes[r.oldStart + k];
      }
    }
  }
  const reformattedHashes = splitPacked(recordEntry.reformattedHashes);
  let r = 0;
  for (const span of change.reformatted) {
    for (let l = span.start; l <= span.end; l++, r++) {
      const owner = owners[l];
      if (owner) owners[l] = { ...owner, reformattedBy: recordEntry };
      hashes[l] = reformattedHashes[r];
    }
  }
  for (const entry of step.entries) {
    if (entry.startLine === 0) continue;
    const own: LineAttribution = { entry, exact: true, anchor: "carried" };
    const lineHashes = splitLineHashes(entry);
    for (let l = entry.startLine - 1, k = 0; l < entry.endLine && l < change.newCount; l++, k++) {
      owners[l] = own;
      hashes[l] = lineHashes[k];
    }
  }
  return { owners, hashes };
}

/** The state of a content no record explains: `count` lines, owners unknown. */
function unknownState(count: number): LineState {
  return { owners: [], hashes: [], unknownLines: count };
}

/** The records of one file that have line maps, linked by content hashes. */
export class RecordGraph {
  /** Steps by the hash of the content they wrote, oldest first: `newestPinning` without a scan of every step. */
  private readonly byPostHash = new Map<string, RecordStep[]>();
  /**
   * `replayTo`'s results per source depth. A step's state depends on the step and the depth alone (its chain
   * and the sources it takes lines from are fixed by the graph), so each is replayed once: a file whose
   * records move lines to and from others would otherwise replay the same chains again at every step.
   */
  private readonly replayed: Map<RecordStep, LineState>[] = [];

  private constructor(private readonly steps: RecordStep[]) {
    for (const s of steps) {
      if (typeof s.postHash !== "string") continue;
      const list = this.byPostHash.get(s.postHash);
      if (list) list.push(s);
      else this.byPostHash.set(s.postHash, [s]);
    }
  }

  static of(entries: readonly TraceEntry[]): RecordGraph {
    const byChange = new Map<LineChange, RecordStep>();
    for (const e of entries) {
      if (!e.change) continue;
      let step = byChange.get(e.change);
      if (!step) {
        step = { change: e.change, entries: [], preHash: e.preHash, postHash: e.postHash, time: entryTime(e), line: e.line };
        byChange.set(e.change, step);
      }
      step.entries.push(e);
    }
    // oldest first: by timestamp, then ledger line (a ledger is appended in causal order)
    const steps = [...byChange.values()].sort(compareSteps);
    const graph = new RecordGraph(steps);
    const renames = entries.flatMap((e) => (e.renamedFrom ? (graph.renameStep(e) ?? []) : []));
    return renames.length ? new RecordGraph([...steps, ...renames].sort(compareSteps)) : graph;
  }

  /**
   * The step a rename nobody recorded stands for (engine/lineage.ts `renameEntry`): to the content git's rename
   * commit left, its lines paired as git's own diff pairs them (a Myers diff of the line hashes), so that a
   * record of the new path starting from that content chains through it. Records first (docs/LEDGER.md "What
   * decides a line's owner"): when the new path has records of its own from before that commit (an agent's
   * split, committed with a change no record saw), the step starts from its newest recorded content, and only
   * the lines a diff with it leaves unpaired are paired with the old path's content, as lines moved in from
   * there. The lines neither pairs were changed by the commit: nobody recorded them.
   */
  private renameStep(e: TraceEntry): RecordStep | undefined {
    const from = e.renamedFrom!;
    const old = this.newestOf((s) => s.entries[0]!.path === from.path);
    if (!old) return undefined;
    const oldState = this.replayTo(old);
    const own = this.ownBeforeRename(e);
    if (!own) {
      const change = pairedChange(oldState, from.lineHashes, []);
      // just after the old path's newest record, so that the new path's records (all newer) chain through it
      return { change, entries: [e], preHash: old.postHash, postHash: e.postHash, time: old.time, line: old.line + 0.5 };
    }
    const change = pairedChange(this.replayTo(own), from.lineHashes, []);
    const paired = change.carried.map((c) => ({ start: c.newStart, end: c.newStart + c.length - 1 }));
    const runs = pairedChange(oldState, from.lineHashes, paired).carried;
    const entry: TraceEntry = runs.length ? { ...e, movedIn: [{ from: from.path, preHash: old.postHash as string, runs }] } : e;
    const last = compareSteps(own, old) >= 0 ? own : old;
    return { change, entries: [entry], preHash: own.postHash, postHash: e.postHash, time: last.time, line: last.line + 0.5 };
  }

  /** The newest step with a content hash that `which` takes. */
  private newestOf(which: (s: RecordStep) => boolean): RecordStep | undefined {
    for (let i = this.steps.length - 1; i >= 0; i--) {
      const s = this.steps[i]!;
      if (typeof s.postHash === "string" && which(s)) return s;
    }
    return undefined;
  }

  /**
   * The newest record of the renamed path itself from before git's rename (`e`): older than every record of
   * it that starts from the content the rename left. Undefined when the path has none.
   */
  private ownBeforeRename(e: TraceEntry): RecordStep | undefined {
    const mine = (s: RecordStep) => s.entries[0]!.path === e.path && !s.entries[0]!.renamedFrom;
    let after: RecordStep | undefined;
    for (const s of this.steps) if (mine(s) && s.preHash === e.postHash && (!after || compareSteps(s, after) < 0)) after = s;
    return this.newestOf((s) => mine(s) && s.postHash !== e.postHash && (!after || compareSteps(s, after) < 0));
  }

  /** The paths a rename nobody recorded brought `end`'s content from, along its chain (`renameStep`). */
  renamesIn(end: RecordStep): Set<string> {
    const out = new Set<string>();
    for (const s of this.chainTo(end)) {
      const from = s.entries[0]!.renamedFrom;
      if (from) out.add(from.path);
    }
    return out;
  }

  get size(): number {
    return this.steps.length;
  }

  /**
   * The newest record whose content after the write has this hash (older than `before`, when given); of
   * `path`, when one of that path does (two files may hold the same content with different owners: lines moved
   * from one are taken from its own records), else of any path.
   */
  newestPinning(hash: string, before?: RecordStep, path?: string): RecordStep | undefined {
    return this.pinning(hash, path, (s) => !before || compareSteps(s, before) < 0);
  }

  /** `newestPinning`'s newest record that `ok` takes. */
  private pinning(hash: string, path: string | undefined, ok: (s: RecordStep) => boolean): RecordStep | undefined {
    const list = this.byPostHash.get(hash) ?? [];
    let other: RecordStep | undefined;
    for (let i = list.length - 1; i >= 0; i--) {
      const s = list[i]!;
      if (!ok(s)) continue;
      if (path === undefined || s.entries[0]!.path === path) return s;
      other ??= s;
    }
    return other;
  }

  /** Whether any record is of a path git names (engine/lineage.ts). */
  hasGitNamed(): boolean {
    return this.steps.some((s) => s.entries[0]!.gitNamed);
  }

  /** For each path git names, newest first, the newest of its records with a content hash. */
  newestOfGitNamed(): RecordStep[] {
    const seen = new Set<string>();
    const out: RecordStep[] = [];
    for (let i = this.steps.length - 1; i >= 0; i--) {
      const s = this.steps[i]!;
      const e = s.entries[0]!;
      if (!e.gitNamed || !s.postHash || seen.has(e.path)) continue;
      seen.add(e.path);
      out.push(s);
    }
    return out;
  }

  /** The newest record with a content hash: of the path itself when it has one (not of a path it came from). */
  newest(): RecordStep | undefined {
    for (let i = this.steps.length - 1; i >= 0; i--) if (this.steps[i]!.postHash && !this.steps[i]!.entries[0]!.borrowed) return this.steps[i];
    // a file this one was split from is no earlier version of it: only its blocks are taken (fillFromGitNamed)
    for (let i = this.steps.length - 1; i >= 0; i--) if (this.steps[i]!.postHash && this.steps[i]!.entries[0]!.gitNamed !== "split") return this.steps[i];
    return undefined;
  }

  /**
   * The records from the start of `end`'s chain to `end`, oldest first: each the record `sourceOf` gives of
   * the content the next started from (its `pre_hash`). The walk ends: it never takes a record twice.
   */
  chainTo(end: RecordStep, stopAtHash?: string): RecordStep[] {
    const chain = [end];
    const taken = new Set<RecordStep>(chain);
    for (let step = end; ; ) {
      if (typeof step.preHash !== "string" || step.preHash === stopAtHash) break;
      const prev = this.sourceOf(step.preHash, step, undefined, taken);
      if (!prev) break;
      chain.push(prev);
      taken.add(prev);
      step = prev;
    }
    return chain.reverse();
  }

  /**
   * The record that wrote the content `step` started from (of `hash`; of `path` when one of that path did):
   * the newest older than `step`. When none is older (the clocks of the machines that wrote them disagree, or
   * a branch merged later stamped its records so), the newest appended before `step`: a ledger is appended in
   * causal order, and a record that came after `step` wrote that content again later (a cut that restored it).
   * Records in `taken` are left out.
   */
  sourceOf(hash: string, step: RecordStep, path?: string, taken?: ReadonlySet<RecordStep>): RecordStep | undefined {
    const free = (s: RecordStep) => !taken?.has(s);
    return this.pinning(hash, path, (s) => free(s) && compareSteps(s, step) < 0) ?? this.pinning(hash, path, (s) => free(s) && s.line < step.line);
  }

  /** `applyStep`, taking lines a record moved in from other files from those files' records in this graph. */
  apply(state: LineState, step: RecordStep): LineState | undefined {
    return applyStep(state, step, (hash, path) => {
      const source = this.sourceOf(hash, step, path);
      return source && this.replayTo(source, 1);
    });
  }

  /** The state of the content `end` wrote, replayed from the start of its chain. */
  replayTo(end: RecordStep, depth = 0): LineState {
    const memo = this.replayedAt(depth);
    const known = memo.get(end);
    if (known) return known;
    const chain = this.chainTo(end);
    // the newest step of the chain already replayed at this depth: the chain to it is a prefix of this one
    let from = chain.length;
    while (from > 0 && !memo.has(chain[from - 1]!)) from--;
    const first = chain[0]!;
    let state = from > 0 ? memo.get(chain[from - 1]!)! : first.preHash === null ? unknownState(0) : unknownState(first.change.oldCount);
    for (const step of chain.slice(from)) {
      // another file's content a record took lines from, replayed in turn (never through this very chain)
      const stateOf = (hash: string, path: string): LineState | undefined => {
        if (depth >= MAX_SOURCE_DEPTH) return undefined;
        const source = this.sourceOf(hash, step, path);
        return source && this.replayTo(source, depth + 1);
      };
      // a map that does not fit: what came before it is unknown, as at an unrecorded change
      state = applyStep(state, step, stateOf) ?? applyStep(unknownState(step.change.oldCount), step, stateOf)!;
      memo.set(step, state);
    }
    return state;
  }

  private replayedAt(depth: number): Map<RecordStep, LineState> {
    let memo = this.replayed[depth];
    if (!memo) {
      memo = new Map();
      this.replayed[depth] = memo;
    }
    return memo;
  }
}

/**
 * The line map from `state`'s content to a content of `lineHashes`, as a Myers diff of the line hashes pairs
 * them; the new lines in `taken` (0-based spans) are left out of the pairing. A line whose hash or owner is
 * not known pairs with nothing.
 */
function pairedChange(state: LineState, lineHashes: readonly string[], taken: readonly { start: number; end: number }[]): LineChange {
  const count = state.unknownLines ?? state.hashes.length;
  const oldKeys = Array.from({ length: count }, (_, p) => state.hashes[p] ?? `\u0000o${p}`);
  const newKeys = [...lineHashes];
  for (const t of taken) for (let i = t.start; i <= t.end; i++) newKeys[i] = `\u0000n${i}`;
  const segments: Segment[] = [];
  matchRegion(oldKeys, newKeys, 0, oldKeys.length, 0, newKeys.length, segments);
  return { oldCount: count, newCount: lineHashes.length, carried: mergeSegments(segments), reformatted: [] };
}

/** How many files deep lines moved between files are followed (a block moved on and on). */
const MAX_SOURCE_DEPTH = 8;

function compareSteps(a: RecordStep, b: RecordStep): number {
  return a.time - b.time || a.line - b.line;
}

function copyOwners(state: LineState, result: Attributions, count: number): void {
  for (let i = 0; i < count && i < state.owners.length; i++) result[i] = state.owners[i];
}

/**
 * The current lines' owners when they changed since the last recorded content: that content's lines are
 * matched to the current ones by line hash (a line whose hash is not known never matches).
 */
function matchByLineHashes(state: LineState, lines: readonly string[], result: Attributions): void {
  const count = contentLineCount(lines);
  const oldKeys = state.hashes.map((h, i) => h ?? `\u0000${i}`);
  const newKeys = lines.slice(0, count).map(lineHash);
  const segments: Segment[] = [];
  matchRegion(oldKeys, newKeys, 0, oldKeys.length, 0, newKeys.length, segments);
  for (const s of segments) for (let k = 0; k < s.length; k++) result[s.newStart + k] = state.owners[s.oldStart + k];
}

/**
 * Lines still without an owner that the last recorded content of a path git names holds keep the owner
 * they had there. From a path this one was renamed from, the lines a diff of the two contents matches (as `git blame
 * -M` follows a rename); from a file this one was split from, as `git blame -C` credits
 * them, only blocks of lines in a row, equal by line hash, that `isMovedBlock` takes as moved (at least
 * two lines, git's copy score), matched greedily from the top.
 */
function fillFromGitNamed(graph: RecordGraph, lines: readonly string[], result: Attributions, linked: ReadonlySet<string>): void {
  const count = contentLineCount(lines);
  let open = 0;
  for (let i = 0; i < count; i++) if (!result[i]) open++;
  if (!open) return;
  const keys = lines.slice(0, count).map(lineHash);
  for (const step of graph.newestOfGitNamed().slice(0, MAX_SOURCE_DEPTH)) {
    if (step.entries[0]!.gitNamed === "renamed" && linked.has(step.entries[0]!.path)) continue;
    const state = graph.replayTo(step);
    if (step.entries[0]!.gitNamed === "renamed") {
      // a path this one was renamed from: the two contents' diff, over the lines still open on both sides
      const oldKeys = state.hashes.map((h, p) => (h !== undefined && state.owners[p] ? h : `\u0000o${p}`));
      const newKeys = keys.map((k, i) => (result[i] ? `\u0000n${i}` : k));
      const segments: Segment[] = [];
      matchRegion(oldKeys, newKeys, 0, oldKeys.length, 0, newKeys.length, segments);
      for (const seg of segments) for (let k = 0; k < seg.length; k++) result[seg.newStart + k] ??= state.owners[seg.oldStart + k];
      continue;
    }
    const at = new Map<string, number[]>();
    state.hashes.forEach((h, p) => {
      if (h === undefined || !state.owners[p]) return;
      const list = at.get(h);
      if (list) list.push(p);
      else at.set(h, [p]);
    });
    let i = 0;
    while (i < count) {
      if (result[i]) {
        i++;
        continue;
      }
      let best: { p: number; length: number } | undefined;
      for (const p of at.get(keys[i]!) ?? []) {
        let n = 0;
        let score = 0;
        while (i + n < count && !result[i + n] && p + n < state.hashes.length && state.owners[p + n] && state.hashes[p + n] === keys[i + n]) {
          score += lineScore(lines[i + n]!);
          n++;
        }
        if (isMovedBlock(n, score) && (!best || n > best.length)) best = { p, length: n };
      }
      if (!best) {
        i++;
        continue;
      }
      for (let k = 0; k < best.length; k++) result[i + k] = state.owners[best.p + k];
      i += best.length;
    }
  }
}

function splitPacked(packed: string | undefined): string[] {
  return packed ? splitLineHashes({ lineHashes: packed }) : [];
}
