import { fileHash, splitLines } from "../engine/hashing";
import type { Span } from "../engine/lineChange";

/** A baseline's content: its text, its lines and its hash. */
export interface BaselineContent {
  readonly text: string;
  readonly lines: string[];
  readonly hash: string;
}

/**
 * An open document's baseline: the text at open, last save or reload, which its edits and its owners refer
 * to, and the baseline before it while a block cut from it may be pasted elsewhere.
 */
export class DocumentBaseline {
  private content: BaselineContent;
  private prior: PriorContent | undefined;

  /** `lines`: `splitLines(text)` when the caller has them already (the buffer's, at open). */
  constructor(text: string, lines: string[] = splitLines(text)) {
    this.content = { text, lines, hash: fileHash(text) };
  }

  get text(): string {
    return this.content.text;
  }

  get lines(): string[] {
    return this.content.lines;
  }

  /** Hash of the baseline: the file as the editor last loaded, saved or reloaded it. */
  get hash(): string {
    return this.content.hash;
  }

  /** The content as it is, to go back to with `restore`. */
  snapshot(): BaselineContent {
    return this.content;
  }

  /** A new baseline; the one it replaces becomes the prior one when their contents differ. */
  replace(text: string, lines: string[], hash = fileHash(text)): void {
    if (hash !== this.content.hash) this.prior = { lines: this.content.lines, hash: this.content.hash };
    this.content = { text, lines, hash };
  }

  /** Which lines of the prior baseline (content `hash`) a save removed: a cut saved before its paste. */
  priorCut(hash: string, removed: Span[]): void {
    if (this.prior?.hash === hash && this.content.hash !== hash) this.prior = { ...this.prior, removed };
  }

  /** Goes back to an earlier content (a tentative reload undone); the prior one stays. */
  restore(content: BaselineContent): void {
    this.content = content;
  }

  /** The baseline and the one before it, newest first, as far as known. */
  recent(): PriorContent[] {
    return this.prior ? [this.content, this.prior] : [this.content];
  }
}

/** A baseline as a block source: its lines and hash, and for the one before the last save, which lines it lost. */
export interface PriorContent {
  lines: string[];
  hash: string;
  removed?: Span[];
}
