/**
 * "Who wrote these lines?" as one list of rows (docs/ATTRIBUTION.md), for `intent blame` and the editor's
 * `intent.blame` alike: the same line model, the same fields, the same words.
 *
 * Lines are numbered from 1 and counted by `textLines`: a final line break ends the last line, it does not
 * start another ("a\nb\n" has two lines), in the editor as in the terminal.
 */
import type { AdoptedLine, GitAuthor } from "./adoption";
import { attribute, type ChainOwners, type LineAttribution, settleByChain } from "./attribution";
import { TextHashes } from "./contentAnchors";
import { authorOfEntry, isOutOfScopeEntry, type Author } from "./authorship";
import { splitLines } from "./hashing";
import type { TraceEntry } from "./ledger/read";
import { sourceText } from "./describe";
import { confidenceOf, type Confidence } from "./confidence";
import { fileHash } from "./hashing";
import { textLines } from "./lines";

/**
 * Who wrote a line: a ledger entry, an unsaved edit in an open editor, nobody on record (a line kept from
 * before the adoption point, or an untraced one), or not known yet (the editor is still reading the ledger:
 * never a false "untraced").
 */
export type LineOwner =
  | { kind: "traced"; attribution: LineAttribution }
  | { kind: "edited" }
  | { kind: "beforeAdoption"; adopted: AdoptedLine }
  | { kind: "untraced" }
  | { kind: "indexing" };

/**
 * Each line's lines kept since the adoption point (engine/adoption.ts `keptSinceAdoption`, by 0-based index),
 * when there is one: a line no record explains is "before adoption" there, else untraced.
 */
export type Adopted = readonly (AdoptedLine | undefined)[] | undefined;

/** One row of blame: `intent blame --json` prints these, `intent.blame` returns them. */
export interface BlameLine {
  /** 1-based. */
  line: number;
  kind: LineOwner["kind"];
  /** Who the line counts for in `intent stats` (engine/authorship.ts); absent for unsaved or not yet indexed lines. */
  author?: Author;
  intent?: string;
  contributor?: string;
  model?: string;
  /** The person's name a human contributor's record carries. */
  person?: string;
  /** Why an `unknown` contributor's line is not the person's who saved it (docs/LEDGER.md "Lines the editor cannot credit"). */
  why?: string;
  /** The record was written outside its intent's scope (shown as "(out of scope)", as in the editor). */
  outOfScope?: boolean;
  timestamp?: string;
  traceId?: string;
  /** The line's content is proven by a hash (false: placed by the record's line numbers only). */
  exact?: boolean;
  /** The path the line was written in, when it came here by a rename, move or copy (engine/lineage.ts). */
  from?: string;
  /** Who git says wrote a line kept from before the adoption point, at the adoption commit (engine/adoption.ts). */
  git?: GitAuthor;
  /** How sure the owner is (engine/confidence.ts): for traced and untraced lines. */
  confidence?: Confidence;
  /** The tool that wrote the line's record when it is not intent-lsp: another Agent Trace writer, or git-ai's notes (`intent import git-ai`). */
  source?: string;
  /** Who moved it here, when the move was recorded as it happened (`moved_from`). */
  movedBy?: { contributor: string; model?: string; person?: string; timestamp: string; traceId: string };
  text: string;
}

/** 1-based, inclusive; absent ends mean the first and the last line. Clamped to the text. */
export interface BlameRange {
  start?: number;
  end?: number;
}

/** Blame for content read from disk: the ledger's entries for the file re-anchored on `text`. */
/** `path`: the file's path, so that a line written in another path (a rename, move or copy) says where (`from`). */
export function blame(entries: readonly TraceEntry[], text: string, range: BlameRange = {}, path?: string, adopted?: Adopted): BlameLine[] {
  const attributions = entries.length ? attribute(entries, splitLines(text)) : [];
  return blameByOwner(text, ownerFrom(attributions, adopted), range, path);
}

/**
 * Attribution of some lines (1-based), from as few of a file's newest records as settle them all: a line
 * whose owner the chain of the records read so far settles cannot be changed by older records (see
 * `settleByChain`); any other line needs the rest. `batches` are the file's entries newest first
 * (WorkspaceLedger.entryBatches). Only the chain is worked out for each batch; attribution by content, most
 * of the work, is done once, for the records read when the reading stops.
 */
export function attributeChanged(
  lines: readonly string[],
  changed: readonly number[],
  batches: Iterable<readonly TraceEntry[]>,
): (LineAttribution | undefined)[] {
  const entries: TraceEntry[] = [];
  let owners: ChainOwners | undefined;
  const text = new TextHashes(lines);
  for (const batch of batches) {
    for (const e of batch) entries.push(e);
    owners = settleByChain(entries, lines, text);
    const o = owners;
    if (changed.every((line) => line > lines.length || o.settled(line - 1))) break;
  }
  return owners ? owners.complete() : [];
}

/** `blame` from a file's entries newest first, reading only as many records as the asked lines need. */
export function blameNewestFirst(
  batches: Iterable<readonly TraceEntry[]>,
  text: string,
  range: BlameRange = {},
  path?: string,
  adopted?: Adopted,
): BlameLine[] {
  // one split serves attribution (every piece) and the rows (the `textLines` count of them)
  const split = splitLines(text);
  const count = split.length > 1 && split[split.length - 1] === "" ? split.length - 1 : split.length;
  const wanted: number[] = [];
  for (let n = Math.max(1, range.start ?? 1); n <= Math.min(count, range.end ?? count); n++) wanted.push(n);
  const attributions = attributeChanged(split, wanted, batches);
  return rows(split, count, ownerFrom(attributions, adopted), range, path, pinnedBy(text));
}

/**
 * Blame where the caller knows each line's owner (an open document, whose edits are tracked as they happen).
 * `pinned`: the hash of the content the owners were computed on, when it is not `text`'s (an open
 * document's last loaded or saved content, while it has unsaved edits).
 */
export function blameByOwner(text: string, ownerOf: (index: number) => LineOwner, range: BlameRange = {}, path?: string, pinned?: string): BlameLine[] {
  const lines = textLines(text);
  return rows(lines, lines.length, ownerOf, range, path, pinned !== undefined ? () => pinned : pinnedBy(text));
}

/** The hash of `text`, made once and only when a row needs it. */
function pinnedBy(text: string): () => string {
  let hash: string | undefined;
  return () => (hash ??= fileHash(text));
}

/** The rows of the first `count` of `lines` (the text's `textLines`), within `range`. */
function rows(
  lines: readonly string[],
  count: number,
  ownerOf: (index: number) => LineOwner,
  range: BlameRange,
  path: string | undefined,
  pinned: () => string,
): BlameLine[] {
  const start = Math.max(1, range.start ?? 1);
  const end = Math.min(count, range.end ?? count);
  const out: BlameLine[] = [];
  for (let n = start; n <= end; n++) out.push(blameLine(n, ownerOf(n - 1), lines[n - 1]!, path, pinned));
  return out;
}

function blameLine(line: number, owner: LineOwner, text: string, path: string | undefined, pinned: () => string): BlameLine {
  if (owner.kind === "untraced") return { line, kind: owner.kind, author: "untraced", confidence: "untraced", text };
  if (owner.kind === "beforeAdoption")
    return { line, kind: owner.kind, author: "beforeAdoption", ...(owner.adopted.author ? { git: owner.adopted.author } : {}), text };
  if (owner.kind !== "traced") return { line, kind: owner.kind, text };
  const { entry, exact, movedBy } = owner.attribution;
  const from = path !== undefined && entry.path !== path ? entry.path : undefined;
  return {
    line,
    kind: "traced",
    author: authorOfEntry(entry),
    ...(entry.intentId ? { intent: entry.intentId } : {}),
    contributor: entry.contributor.type,
    ...(entry.contributor.modelId ? { model: entry.contributor.modelId } : {}),
    ...(entry.contributor.name ? { person: entry.contributor.name } : {}),
    ...(entry.contributor.why ? { why: entry.contributor.why } : {}),
    ...(sourceText(entry) ? { source: sourceText(entry) } : {}),
    ...(isOutOfScopeEntry(entry) ? { outOfScope: true } : {}),
    timestamp: entry.timestamp,
    traceId: entry.recordId,
    exact,
    confidence: confidenceOf(owner.attribution, path, owner.attribution.anchor === "carried" ? pinned() : undefined),
    ...(from !== undefined ? { from } : {}),
    ...(from !== undefined && movedBy
      ? {
          movedBy: {
            contributor: movedBy.contributor.type,
            ...(movedBy.contributor.modelId ? { model: movedBy.contributor.modelId } : {}),
            ...(movedBy.contributor.name ? { person: movedBy.contributor.name } : {}),
            timestamp: movedBy.timestamp,
            traceId: movedBy.recordId,
          },
        }
      : {}),
    text,
  };
}

/** Each line's owner from its attribution; a line with none is before adoption when kept since then, else untraced. */
function ownerFrom(attributions: readonly (LineAttribution | undefined)[], adopted: Adopted): (i: number) => LineOwner {
  return (i) => unexplainedOr(attributions[i], adopted?.[i]);
}

/** The one rule of a line's owner: its record; without one, before adoption when kept since then; else untraced. */
function unexplainedOr(attribution: LineAttribution | undefined, adopted: AdoptedLine | undefined): LineOwner {
  if (attribution) return { kind: "traced", attribution };
  return adopted ? { kind: "beforeAdoption", adopted } : { kind: "untraced" };
}
