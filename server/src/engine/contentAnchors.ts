/**
 * Attribution by content, for what the records' line maps cannot explain (see `attribution.ts`): records
 * without a map (other tools, intent-lsp before 0.2) and lines that reached the file through a change nobody
 * recorded. The ledger's entries for a file are re-anchored onto its current lines by content hash.
 *
 * Rules, newest record first (a line keeps the first attribution it gets, and lines already attributed by
 * the caller are never touched):
 * 1. a range whose recorded lines still hash to its `content_hash` is attributed where it was recorded
 *    (or when the record's `post_hash` is the current file's hash, which pins every line number);
 * 2. otherwise a window of the same length elsewhere with that hash: the block moved within the file;
 * 3. otherwise, with our per-line hashes, a line-level diff (LCS) re-anchors the lines that are unchanged,
 *    so an edited line loses attribution and its neighbours keep theirs;
 * 4. a range with no hash we can check (reference-implementation records, other hash algorithms) is taken
 *    at its recorded position, marked `exact: false`, and only if it fits in the file;
 * 5. a file-level entry (flat records) covers the whole file only if the file's hash matches.
 * A line whose content does not match a checkable hash is never attributed: better "untraced" than a human's
 * line shown as an AI's or the reverse.
 */
import { diffArrays } from "diff";
import { contentHash, HASH_PREFIX, lineHash } from "./hashing";
import type { AnchorKind, LineAttribution } from "./attribution";
import { newestFirst } from "./ledger/entryOrder";
import { splitLineHashes, type TraceEntry } from "./ledger/read";

/** Hash occurrences above this are too common (`}`, blank) to locate a block by. */
const MAX_ANCHOR_OCCURRENCES = 16;
/** Lines inserted or removed inside a block that re-anchoring still follows. */
const MIN_DRIFT = 64;
/** Above this, a line-level diff is given up (the range is then unattributed, never guessed). */
const MAX_EDIT_LENGTH = 1000;
/** Budget (lines hashed) for searching moved blocks of records without per-line hashes. */
const WINDOW_SCAN_BUDGET = 2_000_000;

/**
 * Fills the undefined places of `result` (one per line of `lines`, the file's current content split by
 * `splitLines`) from `entries`, the ledger entries of this file in any order.
 */
export function anchorByContent(
  entries: readonly TraceEntry[],
  lines: readonly string[],
  result: (LineAttribution | undefined)[],
  text: TextHashes = new TextHashes(lines),
): void {
  const view = new FileView(text);
  for (const entry of newestFirst(entries)) {
    if (entry.startLine === 0) attributeFile(view, entry, result);
    else attributeRange(view, entry, result);
  }
}

type Result = (LineAttribution | undefined)[];

function attributeFile(view: FileView, entry: TraceEntry, result: Result): void {
  const check = hashCheck(entry.contentHash);
  if (check?.(view.fileHash())) claim(result, 0, view.length, { entry, exact: true, anchor: "file" });
}

function attributeRange(view: FileView, entry: TraceEntry, result: Result): void {
  const start = entry.startLine - 1;
  const length = entry.endLine - entry.startLine + 1;
  const fits = start + length <= view.length;
  const exactAt = (anchor: AnchorKind): LineAttribution => ({ entry, exact: true, anchor });

  if (fits && entry.postHash && entry.postHash === view.fileHash()) {
    claim(result, start, start + length, exactAt("range"));
    return;
  }
  const recordedLines = splitLineHashes(entry);
  const check = hashCheck(entry.contentHash);
  if (check) {
    if (fits && check(view.rangeHash(start, length))) {
      claim(result, start, start + length, exactAt("range"));
      return;
    }
    const moved = findMovedBlock(view, check, start, length, recordedLines, result);
    if (moved !== undefined) {
      claim(result, moved, moved + length, exactAt("moved"));
      return;
    }
  }
  if (recordedLines.length === length) {
    for (const line of reanchorLines(view, recordedLines, start)) claim(result, line, line + 1, exactAt("line"));
    return;
  }
  if (!check && fits) claim(result, start, start + length, { entry, exact: false, anchor: "position" });
}

/** Start of a window (nearest the recorded position, not already fully attributed) with the range's hash. */
function findMovedBlock(view: FileView, check: HashCheck, recordedStart: number, length: number, recordedLines: string[], result: Result): number | undefined {
  let candidates: number[];
  if (recordedLines.length === length) {
    candidates = (view.positions().get(recordedLines[0]!) ?? []).filter((p) => p + length <= view.length);
  } else {
    const windows = view.windowHashes(length);
    if (!windows) return undefined;
    candidates = [];
    for (let p = 0; p < windows.length; p++) if (check(windows[p]!)) candidates.push(p);
  }
  candidates.sort((a, b) => Math.abs(a - recordedStart) - Math.abs(b - recordedStart));
  for (const p of candidates) {
    if (p === recordedStart) continue; // already checked in place
    if (!hasUnclaimed(result, p, p + length)) continue;
    if (check(view.rangeHash(p, length))) return p;
  }
  return undefined;
}

/**
 * Current positions (0-based) of the recorded lines that are unchanged, by an LCS diff of per-line hashes
 * over the region where the block now is. The region is found by voting: each distinctive recorded line
 * found in the file votes for a block offset; the most voted offset wins (ties: nearest the recorded spot).
 */
function reanchorLines(view: FileView, recorded: string[], recordedStart: number): number[] {
  const positions = view.positions();
  const votes = new Map<number, number>();
  for (let i = 0; i < recorded.length; i++) {
    const occ = positions.get(recorded[i]!);
    if (!occ || occ.length > MAX_ANCHOR_OCCURRENCES) continue;
    for (const p of occ) votes.set(p - i, (votes.get(p - i) ?? 0) + 1);
  }
  let best: number | undefined;
  for (const [offset, n] of votes) {
    const b = best === undefined ? 0 : votes.get(best)!;
    if (best === undefined || n > b || (n === b && Math.abs(offset - recordedStart) < Math.abs(best - recordedStart))) best = offset;
  }
  if (best === undefined) return [];

  // The block spans from the first to the last consistent anchor, widened for the recorded lines beyond them.
  const drift = Math.max(MIN_DRIFT, recorded.length);
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < recorded.length; i++) {
    const occ = positions.get(recorded[i]!);
    if (!occ || occ.length > MAX_ANCHOR_OCCURRENCES) continue;
    for (const p of occ) {
      if (Math.abs(p - i - best) > drift) continue;
      lo = Math.min(lo, p - i);
      hi = Math.max(hi, p + (recorded.length - i));
    }
  }
  const from = Math.max(0, lo);
  const to = Math.min(view.length, hi);
  const changes = diffArrays(recorded, view.lineHashes().slice(from, to), { maxEditLength: MAX_EDIT_LENGTH });
  if (!changes) return [];

  const matched: number[] = [];
  let current = from;
  for (const change of changes) {
    const count = change.count ?? change.value.length;
    if (change.removed) continue;
    if (!change.added) for (let k = 0; k < count; k++) matched.push(current + k);
    current += count;
  }
  return matched;
}

function claim(result: Result, from: number, to: number, attribution: LineAttribution): void {
  for (let i = from; i < to; i++) if (result[i] === undefined) result[i] = attribution;
}

function hasUnclaimed(result: Result, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (result[i] === undefined) return true;
  return false;
}

/** Tests a computed `sha256:<hex>` against a recorded hash. */
type HashCheck = (computed: string) => boolean;

/**
 * A checker for a recorded hash, or undefined when it cannot be checked: absent, or another algorithm
 * (e.g. the spec example's `murmur3:`). Truncated sha256 hex (≥ 8 digits, seen in older records) is compared
 * as a prefix.
 */
function hashCheck(recorded: string | undefined): HashCheck | undefined {
  if (!recorded?.startsWith(HASH_PREFIX)) return undefined;
  const hex = recorded.slice(HASH_PREFIX.length).toLowerCase();
  if (!/^[0-9a-f]{8,64}$/.test(hex)) return undefined;
  const want = HASH_PREFIX + hex;
  return hex.length === 64 ? (computed) => computed === want : (computed) => computed.startsWith(want);
}

/**
 * The hashes of one text's lines, computed once when first asked for: shared by every call that attributes
 * the same text (a reader going through a file's records in batches attributes it once per batch).
 */
export class TextHashes {
  readonly length: number;
  private contentHashValue: string | undefined;
  private hashes: string[] | undefined;
  private positionMap: Map<string, number[]> | undefined;

  /** `lines`: the text split by `splitLines`; `knownHash`: their `contentHash`, when the caller has it. */
  constructor(
    readonly lines: readonly string[],
    knownHash?: string,
  ) {
    // no normalized copy of the lines: contentHash and lineHash normalize each line they hash, and a copy
    // of a million-line document's lines is a stall of its own
    this.length = lines.length;
    this.contentHashValue = knownHash;
  }

  /** `contentHash` of the lines. */
  fileHash(): string {
    this.contentHashValue ??= contentHash(this.lines);
    return this.contentHashValue;
  }

  lineHashes(): string[] {
    this.hashes ??= this.lines.map(lineHash);
    return this.hashes;
  }

  /** Line hash -> 0-based positions, ascending. */
  positions(): Map<string, number[]> {
    if (!this.positionMap) {
      const map = new Map<string, number[]>();
      this.lineHashes().forEach((h, i) => {
        const list = map.get(h);
        if (list) list.push(i);
        else map.set(h, [i]);
      });
      this.positionMap = map;
    }
    return this.positionMap;
  }
}

/** The current lines' hashes and lookups, with the scan budget of one call (shared by all its entries). */
class FileView {
  readonly length: number;
  private readonly lines: readonly string[];
  private readonly windows = new Map<number, string[] | undefined>();
  private windowBudget = WINDOW_SCAN_BUDGET;

  constructor(private readonly text: TextHashes) {
    this.length = text.length;
    this.lines = text.lines;
  }

  fileHash(): string {
    return this.text.fileHash();
  }

  rangeHash(start: number, length: number): string {
    return contentHash(this.lines.slice(start, start + length));
  }

  lineHashes(): string[] {
    return this.text.lineHashes();
  }

  /** Line hash -> 0-based positions, ascending. */
  positions(): Map<string, number[]> {
    return this.text.positions();
  }

  /** Hash of every window of `length` lines, or undefined once the scan budget is spent. */
  windowHashes(length: number): string[] | undefined {
    if (this.windows.has(length)) return this.windows.get(length);
    const count = Math.max(0, this.length - length + 1);
    const cost = count * length;
    let hashes: string[] | undefined;
    if (cost <= this.windowBudget) {
      this.windowBudget -= cost;
      hashes = new Array<string>(count);
      for (let p = 0; p < count; p++) hashes[p] = this.rangeHash(p, length);
    }
    this.windows.set(length, hashes);
    return hashes;
  }
}
