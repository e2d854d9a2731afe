/**
 * The truth model: every line of every file with its text, its line ending and its true owner, kept by the
 * generator as it invents edits. See test/oracle/README.md for the rules a line's owner follows.
 *
 * A `TruthLine` object is one version of one line: any change to its raw text (even whitespace) makes a new
 * object with a new id, so "the lines a change touched" are the ones whose `touch` is that change's step.
 */

export type ContributorType = "human" | "ai";

export interface Owner {
  type: ContributorType;
  /** A change no door recorded (a teammate's commit pulled in): "untraced" is the right answer for its lines. */
  unrecorded?: true;
  /** models.dev style `provider/model`, for AI owners. */
  modelId?: string;
  intentId: string;
}

/** What kind of change last touched a line: the rows of the per-kind table. */
export type EditKind =
  | "create"
  | "modify"
  | "insert-above"
  | "delete"
  | "block-move"
  | "copy-block"
  | "interleaved"
  | "large-paste"
  | "whitespace"
  | "dup-blank-brace"
  | "revert"
  | "type-undo"
  /** a file renamed or moved (fileOps.ts): its lines keep their owners, their row becomes the move's */
  | "git-rename"
  | "editor-rename"
  | "agent-shell-move"
  | "agent-tool-move"
  /** a block cut from one file and pasted into another, or copied there: it keeps its owners */
  | "cross-file-move"
  | "cross-file-copy"
  | "agent-cross-file-move"
  /**
   * an agent's refactor across files (fileOps.ts `REFACTOR_KINDS`): most of a file split into a new module,
   * a function extracted into a new file, a file merged into another; the moved lines keep their owners
   */
  | "agent-split"
  | "agent-extract"
  | "agent-merge"
  /** the files and the ledger rewritten by git: every line keeps its owner */
  | "rebase"
  | "squash-merge";

/** How the change reached the file: the rows of the per-path table. */
export type Via =
  /** typed in the editor and saved (contributor from the editor's settings: human) */
  | "editor"
  /** typed in the editor whose `contributor` setting is an AI model (an in-editor assistant), and saved */
  | "ai-editor"
  /** an agent's hook-recorded write while the editor has the file open; the editor reloads in one region */
  | "agent-open-region"
  /** the same, the editor reloading with one change per diff hunk, bottom-up */
  | "agent-open-hunks"
  /** an agent's hook-recorded write while the file is closed in the editor */
  | "agent-closed"
  /** a commit that renamed the file (with its edits), made outside intent-lsp and recorded by no door */
  | "git-rename";

export type Eol = "\n" | "\r\n";

export interface TruthLine {
  /** Unique per line version. */
  id: number;
  text: string;
  eol: Eol;
  owner: Owner;
  kind: EditKind;
  via: Via;
  /** Step that last changed this line's raw text (whitespace included). */
  touch: number;
  /** A file-level step that carried the line without changing it: its kind and order are the line's rows. */
  rowStep?: number;
  /** Last written by an agent's content-only write before a file operation carried it (fileOps.ts). */
  contentOnly?: boolean;
  /** For a whitespace-only change: the line version it replaced. */
  prev?: { id: number; text: string };
}

/** Lines [at, at+remove) replaced by `insert`; a step's splices apply one after another. */
export interface Splice {
  at: number;
  remove: number;
  insert: TruthLine[];
}

export function isAgentVia(via: Via): boolean {
  return via.startsWith("agent-");
}

export function fileText(lines: readonly { text: string; eol: Eol }[]): string {
  let s = "";
  for (const l of lines) s += l.text + l.eol;
  return s;
}

export function applySplices(lines: readonly TruthLine[], splices: readonly Splice[]): TruthLine[] {
  const out = [...lines];
  for (const s of splices) {
    if (s.at < 0 || s.at + s.remove > out.length) throw new Error(`splice ${s.at}+${s.remove} outside a file of ${out.length} lines`);
    out.splice(s.at, s.remove, ...s.insert);
  }
  return out;
}

/** The line as the ledger's hashes see it: trailing spaces and tabs do not count. */
export function normalizedText(text: string): string {
  return text.replace(/[ \t]+$/, "");
}

/** A whitespace-only change keeps the owner: equal once every space, tab and line ending is removed. */
export function sameButWhitespace(a: string, b: string): boolean {
  return a.replace(/\s+/g, "") === b.replace(/\s+/g, "");
}

export function sameOwner(a: Owner, b: Owner): boolean {
  return a.type === b.type && (a.type === "human" || a.modelId === b.modelId) && a.intentId === b.intentId;
}

export function ownerLabel(o: Owner): string {
  if (o.unrecorded) return "untraced";
  return `${o.type}${o.modelId ? `:${o.modelId}` : ""}@${o.intentId}`;
}

/** Maximal runs of adjacent lines with the same normalized text, as [start, end) pairs (singletons included). */
export function identicalRuns(texts: readonly string[]): [number, number][] {
  const runs: [number, number][] = [];
  let start = 0;
  for (let i = 1; i <= texts.length; i++) {
    if (i === texts.length || normalizedText(texts[i]!) !== normalizedText(texts[start]!)) {
      runs.push([start, i]);
      start = i;
    }
  }
  return runs;
}
