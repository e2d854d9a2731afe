/**
 * `intent revert` as data (docs/CLI.md "intent revert"): which lines of a file one contributor (an intent, a
 * model, a session) wrote and that survive as it wrote them, the change that takes them out and puts back the
 * lines they replaced, and every line of theirs left alone with the reason. The owners are blame's
 * (engine/attribution.ts, engine/confidence.ts); a line is taken out only when its owner is proven by the
 * records (`exact` or `replayed`), never found by content: a wrong revert deletes someone else's work.
 */
import { SESSION_URN_PREFIX } from "@shared/agentTrace";
import { RecordGraph, type Attributions, type LineAttribution, type RecordStep } from "./attribution";
import { confidenceOf } from "./confidence";
import { normalizeModelId } from "./contributor";
import { shortModel } from "./describe";
import { fileHash, splitLines } from "./hashing";
import { entryTime } from "./ledger/entryOrder";
import type { TraceEntry } from "./ledger/read";
import type { LineChange } from "./lineChange";

/** Whose work is taken back: exactly one of intent, model, session; `since` (epoch ms) narrows it to newer records. */
export interface RevertSelector {
  intent?: string;
  model?: string;
  session?: string;
  since?: number;
}

/** Whether a record's entry is the selected contributor's work. */
export function selects(selector: RevertSelector, e: TraceEntry): boolean {
  if (selector.since !== undefined && !(entryTime(e) >= selector.since)) return false;
  if (selector.intent !== undefined) return e.intentId === selector.intent;
  if (selector.model !== undefined) {
    const id = e.contributor.modelId;
    if (id === undefined) return false;
    // the id as recorded, the id as the hooks normalize it, or the model without its provider
    return id === selector.model || id === normalizeModelId(selector.model) || shortModel(id) === selector.model;
  }
  if (selector.session !== undefined) {
    const url = e.url;
    return url !== undefined && (url === selector.session || url === `${SESSION_URN_PREFIX}${selector.session}`);
  }
  return false;
}

export type LeftAloneReason = "edited" | "moved" | "ambiguous";

/** A line of the selected contributor's that the revert does not touch. `line` is 1-based in the current file. */
export interface LeftAlone {
  line: number;
  reason: LeftAloneReason;
  why: string;
  text: string;
}

/**
 * Where the text of an old line may be read: line `line` (0-based) of the content `hash` pins, held under one
 * of `paths` (the file's, or the one it was moved from). A line carried unchanged through earlier records has
 * one place per content it was carried from, newest first.
 */
export interface LineSource {
  hash: string;
  line: number;
  paths: string[];
}

/**
 * An old line a run replaced: the contributor's own (an earlier record of theirs: never put back; `earlier`
 * names that record when its own change replaced lines, which are not put back either), or where its text is.
 */
type OldLine = { own: true; earlier?: string } | { own?: undefined; sources: LineSource[] };

/** The old lines a run of reverted lines replaced. */
interface Replaced {
  lines: OldLine[];
}

/** Consecutive current lines (0-based `start`) the revert takes out, and what goes back in their place. */
interface Run {
  start: number;
  length: number;
  recordId: string;
  replaced?: Replaced;
  /** Why the lines this run replaced cannot be put back, when they cannot. */
  unrestorable?: string;
}

/** What reverting one file needs: `attributions` are blame's (one per line of `text`), from `entries`. */
export interface FileRevertInput {
  path: string;
  text: string;
  attributions: Attributions;
  entries: readonly TraceEntry[];
}

export interface FilePlan {
  path: string;
  /** 1-based current lines taken out. */
  reverted: number[];
  leftAlone: LeftAlone[];
  runs: Run[];
}

/** One hunk of a record's line map: old lines [oldStart, oldEnd) replaced by new lines [newStart, newEnd). */
interface Hunk {
  oldStart: number;
  oldEnd: number;
  newStart: number;
  newEnd: number;
}

/** The hunk of `change` that holds new line `line` (0-based): a record's range lies within one. */
function hunkOf(change: LineChange, line: number): Hunk | undefined {
  let oldAt = 0;
  let newAt = 0;
  for (const s of [...change.carried, { oldStart: change.oldCount, newStart: change.newCount, length: 0 }]) {
    if (line >= newAt && line < s.newStart) return { oldStart: oldAt, oldEnd: s.oldStart, newStart: newAt, newEnd: s.newStart };
    oldAt = s.oldStart + s.length;
    newAt = s.newStart + s.length;
  }
  return undefined;
}

/** The step a file entry of a record stands for, for the graph's "newest before this one" questions. */
function stepOf(e: TraceEntry): RecordStep {
  return { change: e.change!, entries: [e], preHash: e.preHash, postHash: e.postHash, time: entryTime(e), line: e.line };
}

/** How many earlier contents an old line's text is looked for in. */
const MAX_SOURCES = 64;

/** How far back `editedOver` follows lines replaced by lines that were replaced in turn. */
const MAX_EDIT_DEPTH = 16;

/**
 * The plan of one file: each line whose owner is a selected record proven by the records is taken out; a line
 * of theirs that came by a move or by content is left alone, as is a line that replaced theirs since.
 */
export function planFileRevert(input: FileRevertInput, selector: RevertSelector): FilePlan {
  const { path, text, attributions } = input;
  const lines = splitLines(text);
  const count = lines.length > 1 && lines[lines.length - 1] === "" ? lines.length - 1 : lines.length === 1 && lines[0] === "" ? 0 : lines.length;
  const graph = RecordGraph.of(input.entries);
  const pinned = fileHash(text);
  /** Each old line of the content a record started from that was the selected contributor's, or undefined when unknown. */
  const oldOwners = (e: TraceEntry): (LineAttribution | undefined)[] | undefined => {
    if (typeof e.preHash !== "string" || !e.change) return undefined;
    const before = graph.sourceOf(e.preHash, stepOf(e), e.path);
    if (!before) return undefined;
    const state = graph.replayTo(before);
    return state.unknownLines !== undefined ? undefined : state.owners;
  };
  const touched = new Map<string, boolean>();
  /** Whether the hunk of `e` holding `line` replaced the selected contributor's lines (or lines that replaced theirs). */
  const editedOver = (e: TraceEntry, line: number, depth: number): boolean => {
    if (!e.change || depth > MAX_EDIT_DEPTH) return false;
    const hunk = hunkOf(e.change, line);
    if (!hunk) return false;
    const key = `${e.recordId}\u0000${e.path}\u0000${hunk.newStart}`;
    const known = touched.get(key);
    if (known !== undefined) return known;
    touched.set(key, false); // a chain that loops back answers no
    const owners = oldOwners(e);
    let found = false;
    for (let k = hunk.oldStart; owners && k < hunk.oldEnd && !found; k++) {
      const o = owners[k];
      if (o) found = selects(selector, o.entry) || (o.anchor === "carried" && editedOver(o.entry, o.entry.startLine - 1, depth + 1));
    }
    touched.set(key, found);
    return found;
  };
  const leftAlone: LeftAlone[] = [];
  const revertAt: (TraceEntry | undefined)[] = new Array<TraceEntry | undefined>(count).fill(undefined);
  for (let i = 0; i < count; i++) {
    const a = attributions[i];
    if (!a) continue;
    if (selects(selector, a.entry)) {
      const confidence = confidenceOf(a, path, a.anchor === "carried" ? pinned : undefined);
      if (confidence === "exact" || confidence === "replayed") revertAt[i] = a.entry;
      else leftAlone.push({ line: i + 1, ...leftAloneWhy(a, path, confidence === "moved"), text: lines[i]! });
      continue;
    }
    if (a.anchor === "carried" && a.entry.startLine > 0 && editedOver(a.entry, a.entry.startLine - 1, 0)) {
      leftAlone.push({ line: i + 1, reason: "edited", why: `since edited by ${writer(a.entry)}`, text: lines[i]! });
    }
  }
  /** Where old line `line` of the content `e` started from can be read: that content, and the contents it was carried from. */
  const sourcesOf = (e: TraceEntry, line: number): LineSource[] => {
    const out: LineSource[] = [];
    let hash = e.preHash;
    let at = line;
    let before = stepOf(e);
    let paths = e.movedFrom !== undefined ? [e.movedFrom, e.path] : [e.path];
    while (typeof hash === "string" && out.length < MAX_SOURCES) {
      out.push({ hash, line: at, paths });
      const step = graph.sourceOf(hash, before, paths[0]);
      const carried = step?.change.carried.find((c) => at >= c.newStart && at < c.newStart + c.length);
      if (!step || !carried) break;
      const written = step.entries[0]!;
      at = carried.oldStart + (at - carried.newStart);
      hash = step.preHash;
      before = step;
      paths = written.movedFrom !== undefined ? [written.movedFrom, written.path] : [written.path];
    }
    return out;
  };
  const replaced = (e: TraceEntry, hunk: Hunk): Replaced => {
    const owners = oldOwners(e);
    const lines: OldLine[] = [];
    for (let k = hunk.oldStart; k < hunk.oldEnd; k++) {
      const o = owners?.[k];
      if (!o || !selects(selector, o.entry)) lines.push({ sources: sourcesOf(e, k) });
      else {
        const earlier = o.entry.change && o.entry.startLine > 0 ? hunkOf(o.entry.change, o.entry.startLine - 1) : undefined;
        lines.push(earlier && earlier.oldEnd > earlier.oldStart ? { own: true, earlier: o.entry.recordId } : { own: true });
      }
    }
    return { lines };
  };
  const runs = runsOf(revertAt, replaced);
  const reverted: number[] = [];
  for (let i = 0; i < count; i++) if (revertAt[i]) reverted.push(i + 1);
  return { path, reverted, leftAlone, runs };
}

/**
 * Why a line of the contributor's that blame does not prove in place is left alone: it came from another path
 * (a recorded move, or a rename or copy git detected), or it was found by its content, which another line may
 * share.
 */
function leftAloneWhy(a: LineAttribution, path: string, recordedMove: boolean): { reason: LeftAloneReason; why: string } {
  if (a.entry.path === path) return { reason: "ambiguous", why: "found by its content, not by the records' line maps" };
  return {
    reason: "moved",
    why: recordedMove ? `moved here from ${a.entry.path}` : `renamed or copied here from ${a.entry.path}, as git shows it (not recorded)`,
  };
}

/** Who changed a line, as a person reads it: the model, or the person's name, with the contributor type. */
function writer(e: TraceEntry): string {
  const name = shortModel(e.contributor.modelId) ?? e.contributor.name;
  return name ? `${name} (${e.contributor.type})` : e.contributor.type;
}

/**
 * The runs of lines to take out, one per hunk of each record (a record's lines stay in order through every
 * later line map, so the lines of one hunk are consecutive when none was changed or removed since). A hunk
 * whose lines all survive, together, puts back the old lines it replaced; one that lost some cannot: where
 * they went is not known.
 */
function runsOf(revertAt: readonly (TraceEntry | undefined)[], replaced: (e: TraceEntry, hunk: Hunk) => Replaced): Run[] {
  const groups = new Map<string, { entry: TraceEntry; hunk: Hunk | undefined; lines: number[] }>();
  revertAt.forEach((e, i) => {
    if (!e) return;
    const hunk = e.change && e.startLine > 0 ? hunkOf(e.change, e.startLine - 1) : undefined;
    const key = `${e.recordId}\u0000${e.path}\u0000${hunk ? hunk.newStart : `line ${i}`}`;
    const group = groups.get(key);
    if (group) group.lines.push(i);
    else groups.set(key, { entry: e, hunk, lines: [i] });
  });
  const runs: Run[] = [];
  for (const { entry, hunk, lines } of groups.values()) {
    const whole = hunk !== undefined && lines.length === hunk.newEnd - hunk.newStart && lines[lines.length - 1]! - lines[0]! === lines.length - 1;
    // the pieces of a hunk that lost lines: each consecutive stretch is a run of its own
    let start = 0;
    for (let k = 1; k <= lines.length; k++) {
      if (k < lines.length && lines[k] === lines[k - 1]! + 1) continue;
      runs.push({ start: lines[start]!, length: k - start, recordId: entry.recordId, ...replacedBy(entry, hunk, whole, replaced) });
      start = k;
    }
  }
  return runs.sort((a, b) => a.start - b.start);
}

function replacedBy(
  e: TraceEntry,
  hunk: Hunk | undefined,
  whole: boolean,
  replaced: (e: TraceEntry, hunk: Hunk) => Replaced,
): Pick<Run, "replaced" | "unrestorable"> {
  if (!e.change) return e.preHash === null ? {} : { unrestorable: "its record has no line map, so which lines it replaced is not known" };
  if (!hunk || hunk.oldEnd === hunk.oldStart) return {}; // it only added lines
  if (!whole) return { unrestorable: "some of the lines it wrote there were changed or removed since, so where the old lines belong is not known" };
  if (typeof e.preHash !== "string") return { unrestorable: "its record does not pin the content it started from" };
  return { replaced: replaced(e, hunk) };
}

/** The contents a plan needs to put replaced lines back: each content's hash and the paths it may be found under. */
export function wantedContents(plans: readonly FilePlan[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const plan of plans) {
    for (const run of plan.runs) {
      for (const old of run.replaced?.lines ?? []) {
        for (const source of old.own ? [] : old.sources) {
          const paths = out.get(source.hash) ?? [];
          for (const p of source.paths) if (!paths.includes(p)) paths.push(p);
          out.set(source.hash, paths);
        }
      }
    }
  }
  return out;
}

/** A note on a run whose replaced lines are not all put back. `line`: the run's first current line (1-based). */
export interface RevertNote {
  line: number;
  note: string;
}

export interface FileRevert {
  path: string;
  before: string;
  after: string;
  /** The line map from `before` to `after`: what stayed where; every other line of `after` was put back. */
  change: LineChange;
  notes: RevertNote[];
}

/** A text's lines with what ends each (`\n`, `\r\n`, `\r`, or nothing for a last line without one). */
function linesWithEnds(text: string): { text: string; end: string }[] {
  const out: { text: string; end: string }[] = [];
  const re = /\r\n|\r|\n/g;
  let at = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push({ text: text.slice(at, m.index), end: m[0] });
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push({ text: text.slice(at), end: "" });
  return out;
}

/**
 * The file after the revert: each run taken out and the lines it replaced put back where `contents` (texts by
 * their `fileHash`) holds the content its record started from. Lines that cannot be put back are said why.
 */
export function revertFile(plan: FilePlan, text: string, contents: ReadonlyMap<string, string>): FileRevert {
  const current = linesWithEnds(text);
  const split = new Map<string, { text: string; end: string }[]>();
  const notes: RevertNote[] = [];
  const out: { text: string; end: string }[] = [];
  const carried: LineChange["carried"] = [];
  const keep = (from: number, to: number) => {
    if (to <= from) return;
    carried.push({ oldStart: from, newStart: out.length, length: to - from });
    for (let i = from; i < to; i++) out.push(current[i]!);
  };
  let at = 0;
  for (const run of plan.runs) {
    keep(at, run.start);
    at = run.start + run.length;
    const line = run.start + 1;
    if (run.unrestorable) notes.push({ line, note: `the lines record ${run.recordId.slice(0, 8)} replaced here are not put back: ${run.unrestorable}` });
    if (!run.replaced) continue;
    const earlier = [...new Set(run.replaced.lines.flatMap((l) => (l.own && l.earlier !== undefined ? [l.earlier.slice(0, 8)] : [])))];
    if (earlier.length) {
      notes.push({
        line,
        note: `the lines record ${run.recordId.slice(0, 8)} replaced here were the same contributor's own (record ${earlier.join(", ")}); what that earlier change replaced is not put back`,
      });
    }
    const old = run.replaced.lines.filter((l) => !l.own).map((l) => textOf(l.own ? [] : l.sources, contents, split));
    if (old.some((l) => l === undefined)) {
      notes.push({
        line,
        note: `the ${old.length} line(s) record ${run.recordId.slice(0, 8)} replaced here are not put back: git holds no version of the file with them as the records left them`,
      });
      continue;
    }
    // a put-back line that ended its old file without a line break gets one here
    for (const l of old) out.push(l!.end === "" ? { text: l!.text, end: "\n" } : l!);
  }
  keep(at, current.length);
  const after = out.map((l) => l.text + l.end).join("");
  return { path: plan.path, before: text, after, change: { oldCount: current.length, newCount: out.length, carried: merged(carried), reformatted: [] }, notes };
}

/** An old line's text from the first of its places `contents` holds. */
function textOf(
  sources: readonly LineSource[],
  contents: ReadonlyMap<string, string>,
  split: Map<string, { text: string; end: string }[]>,
): { text: string; end: string } | undefined {
  for (const source of sources) {
    const content = contents.get(source.hash);
    if (content === undefined) continue;
    let lines = split.get(source.hash);
    if (!lines) {
      lines = linesWithEnds(content);
      split.set(source.hash, lines);
    }
    return lines[source.line];
  }
  return undefined;
}

function merged(carried: LineChange["carried"]): LineChange["carried"] {
  const out: LineChange["carried"] = [];
  for (const s of carried) {
    const last = out[out.length - 1];
    if (last && last.oldStart + last.length === s.oldStart && last.newStart + last.length === s.newStart)
      out[out.length - 1] = { ...last, length: last.length + s.length };
    else out.push(s);
  }
  return out;
}

/** Lines of context around each change, as `git diff` shows them. */
const CONTEXT = 3;

/**
 * A `git apply`-able unified diff of one file's revert, from its line map: every line not carried is removed
 * (old side) or added (new side). Empty when nothing changed.
 */
export function unifiedDiff(revert: FileRevert): string {
  const oldLines = linesWithEnds(revert.before);
  const newLines = linesWithEnds(revert.after);
  // the edits between carried runs: old [o0, o1) → new [n0, n1)
  const edits: Hunk[] = [];
  let o = 0;
  let n = 0;
  for (const s of [...revert.change.carried, { oldStart: oldLines.length, newStart: newLines.length, length: 0 }]) {
    if (s.oldStart > o || s.newStart > n) edits.push({ oldStart: o, oldEnd: s.oldStart, newStart: n, newEnd: s.newStart });
    o = s.oldStart + s.length;
    n = s.newStart + s.length;
  }
  if (!edits.length) return "";
  const groups: Hunk[][] = [];
  for (const e of edits) {
    const last = groups[groups.length - 1];
    if (last && e.oldStart - last[last.length - 1]!.oldEnd <= 2 * CONTEXT) last.push(e);
    else groups.push([e]);
  }
  const line = (sign: string, l: { text: string; end: string }) => `${sign}${l.text}${l.end === "" ? "\n\\ No newline at end of file\n" : l.end}`;
  let patch = `diff --git a/${revert.path} b/${revert.path}\n--- a/${revert.path}\n+++ b/${revert.path}\n`;
  for (const group of groups) {
    const first = group[0]!;
    const last = group[group.length - 1]!;
    const before = Math.min(CONTEXT, first.oldStart);
    const after = Math.min(CONTEXT, oldLines.length - last.oldEnd);
    const oldStart = first.oldStart - before;
    const newStart = first.newStart - before;
    const oldLength = last.oldEnd + after - oldStart;
    const newLength = last.newEnd + after - newStart;
    let body = "";
    let at = oldStart;
    for (const e of group) {
      for (; at < e.oldStart; at++) body += line(" ", oldLines[at]!);
      for (let k = e.oldStart; k < e.oldEnd; k++) body += line("-", oldLines[k]!);
      for (let k = e.newStart; k < e.newEnd; k++) body += line("+", newLines[k]!);
      at = e.oldEnd;
    }
    for (; at < last.oldEnd + after; at++) body += line(" ", oldLines[at]!);
    patch += `@@ -${range(oldStart, oldLength)} +${range(newStart, newLength)} @@\n${body}`;
  }
  return patch;
}

/** A hunk header's side: 1-based start and length, as diff writes an empty side (its start is the line before). */
function range(start: number, length: number): string {
  return length === 1 ? `${start + 1}` : `${length === 0 ? start : start + 1},${length}`;
}
