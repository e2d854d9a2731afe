// Whether a change VS Code reports is the person's typing (docs/AGENTS.md "Edits inside the editor"). VS Code
// tells an extension neither who nor what made a change: Copilot's completions and agent mode, Roo Code,
// Continue and any other extension's edits arrive exactly as the person's keystrokes do. What it does tell —
// which editor has the focus, undo and redo, the text inserted, what the person pasted, a save under way — is
// enough to say when a change is certainly not a keystroke; then the server records its lines as `unknown`
// with the reason, never as the person's. Data only: the extension gathers the facts, this decides.

import type { UntypedReason } from "@shared/notifications";

/** One change of a `TextDocumentChangeEvent`, as far as deciding needs it. */
export interface ChangeShape {
  /** The text that replaced the range. */
  text: string;
  /** How many characters it replaced. */
  rangeLength: number;
  /** The replaced range starts and ends on one line. */
  singleLine: boolean;
}

export interface ChangeFacts {
  /** The document is the active editor's, and the window has the focus. */
  focused: boolean;
  /** VS Code says the change is an undo or a redo: the person's, whatever it restores. */
  undoRedo: boolean;
  /** A save of the document is under way (format and code actions on save): a reformatting, not authorship. */
  saving: boolean;
  changes: readonly ChangeShape[];
  /** Text the person pasted into this document a moment before (the paste provider saw it), if any. */
  pasted?: string;
}

/** Undefined: the change may be the person's typing (it is recorded as theirs, as every editor reports it). */
export function untypedReason(facts: ChangeFacts): UntypedReason | undefined {
  if (facts.undoRedo || facts.saving || facts.changes.length === 0) return undefined;
  if (!facts.focused) return "not-focused";
  if (facts.changes.every((c) => isKeystroke(c) || isWordCompletion(c) || isPasted(c, facts.pasted))) return undefined;
  return "inserted-at-once";
}

/** Brackets and quotes an editor closes as the opening one is typed. */
const AUTO_CLOSED = new Set(["()", "[]", "{}", '""', "''", "``", "<>"]);

/**
 * What one key makes: a deletion, one character (with the closing bracket an editor adds), Enter or Tab with
 * the indentation that comes with them, or one composed run of an input method (non-ASCII letters).
 */
function isKeystroke(c: ChangeShape): boolean {
  const visible = c.text.replace(/\s+/g, "");
  if (visible.length <= 1 || AUTO_CLOSED.has(visible)) return true;
  return !c.text.includes("\n") && /^[^\u0000-\u007f]+$/u.test(c.text) && [...c.text].length <= 8;
}

/** A suggestion accepted for the word being typed: one identifier replacing the typed part of it, on one line. */
function isWordCompletion(c: ChangeShape): boolean {
  return c.singleLine && c.rangeLength > 0 && /^[\p{L}\p{N}_$]+$/u.test(c.text);
}

/** The paste's text, or one cursor's share of it (a multi-cursor paste gives each cursor a line). */
function isPasted(c: ChangeShape, pasted: string | undefined): boolean {
  return pasted !== undefined && c.text.length > 0 && normalizeEol(pasted).includes(normalizeEol(c.text));
}

function normalizeEol(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}
