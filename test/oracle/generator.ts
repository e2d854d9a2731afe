import { diffReadsAsTruth } from "./fairness";
import { applyFileOp, FileOpDrawer, type FileOp, type FileOpKind } from "./fileOps";
import { indentOf, LineWriter } from "./lineText";
import type { Prng } from "./prng";
import { applySplices, normalizedText, sameOwner, type EditKind, type Eol, type Owner, type Splice, type TruthLine, type Via } from "./truth";

/**
 * The seeded generator of multi-author edit streams. It owns the truth (every line's owner) and invents the
 * next step from it: who acts, on which file, what kind of change, and how it reaches the file (typed in the
 * editor, or an agent's write with the file open or closed). Drivers carry a step out; `commit` then makes
 * it part of the truth.
 */

export interface Actor {
  name: string;
  /** "editor": typed and saved in the editor; "hook": written by a Claude Code agent through its hook. */
  door: "editor" | "hook";
  owner: Owner;
}

/** A keystroke sequence typed and undone before the save (it must change nothing). */
export interface Typing {
  line: number;
  character: number;
  text: string;
}

export interface Step {
  index: number;
  path: string;
  actor: Actor;
  kind: EditKind;
  via: Via;
  splices: Splice[];
  editor: {
    /** All splices in one didChange (a multi-cursor edit or a formatter), else one notification each. */
    oneNotification: boolean;
    /** Character-level changes (what formatters send) instead of whole-line replacements. */
    fine: boolean;
    typing: Typing[];
  };
  /** A change to files rather than lines (fileOps.ts); its splices then apply as the op says. */
  op?: FileOp;
  hook: {
    /** An Edit (old_string/new_string) when the change allows one, else a Write. */
    preferEdit: boolean;
    /** The editor reloads the buffer before the PostToolUse hook has appended the record. */
    reloadBeforeRecord: boolean;
    /** Close the file in the editor before the agent writes. */
    closeFirst: boolean;
  };
}

export interface GeneratorOptions {
  actors: readonly { actor: Actor; weight: number }[];
  kindWeights?: Partial<Record<EditKind, number>>;
  /** Lines pasted by a large paste. */
  pasteLines: [number, number];
  /** Above this many lines, large pastes turn into large deletions. */
  maxLines: number;
}

export const DEFAULT_KIND_WEIGHTS: Record<Exclude<EditKind, "create" | FileOpKind>, number> = {
  modify: 12,
  "insert-above": 12,
  delete: 6,
  "block-move": 8,
  "copy-block": 5,
  interleaved: 10,
  "large-paste": 4,
  whitespace: 10,
  "dup-blank-brace": 9,
  revert: 7,
  "type-undo": 7,
};

interface HistoryEntry {
  path: string;
  insertedIds: number[];
  removed: { text: string; eol: Eol }[];
  /** The line after the splice once applied (null: end of file), to put removed lines back. */
  anchorId: number | null;
}

/** Attempts at a step an agent can make unambiguously before settling for a plain modification. */
const FAIR_ATTEMPTS = 25;

export class EditStreamGenerator {
  readonly files = new Map<string, TruthLine[]>();
  private nextId = 1;
  private readonly history: HistoryEntry[] = [];
  private readonly writer: LineWriter;
  private readonly kindWeights: Record<string, number>;
  private fileOps: FileOpDrawer | undefined;
  /** Agent changes drawn and then redrawn because a line diff could not tell them apart from another, per kind. */
  readonly unfair: Record<string, number> = {};

  constructor(
    private readonly rng: Prng,
    private readonly options: GeneratorOptions,
  ) {
    this.writer = new LineWriter(rng.fork(1));
    this.kindWeights = { ...DEFAULT_KIND_WEIGHTS, ...options.kindWeights };
  }

  /** Step creating `path` with `count` lines. */
  creation(index: number, path: string, count: number, actor: Actor): Step {
    const via: Via = actor.door === "editor" ? this.editorVia(actor) : "agent-closed";
    const eol: Eol = this.rng.chance(0.2) ? "\r\n" : "\n";
    const texts = this.writer.block(count, "", true);
    const insert = texts.map((t) => this.line(t, eol, actor.owner, "create", via, index));
    return this.step(index, path, actor, "create", via, [{ at: 0, remove: 0, insert }], false);
  }

  /** The next step; `isOpen` tells whether the editor has a file open now. */
  next(index: number, paths: readonly string[], isOpen: (path: string) => boolean, pathWeights?: readonly number[]): Step {
    const actor = this.rng.weighted(Object.fromEntries(this.options.actors.map((a) => [a.actor.name, a.weight]))) as string;
    const who = this.options.actors.find((a) => a.actor.name === actor)!.actor;
    const path = pathWeights ? paths[this.weightedIndex(pathWeights)]! : this.rng.pick(paths);
    const before = this.files.get(path)!;
    let closeFirst = false;
    let via: Via;
    if (who.door === "editor") via = this.editorVia(who);
    else if (!isOpen(path) || this.rng.chance(0.25)) {
      via = "agent-closed";
      closeFirst = isOpen(path);
    } else via = this.rng.chance(0.5) ? "agent-open-region" : "agent-open-hunks";

    for (let attempt = 0; attempt < FAIR_ATTEMPTS; attempt++) {
      const kind = this.pickKind(who);
      const made = this.make(kind, before, who, via, index, path);
      if (!made) continue;
      const step = this.step(index, path, who, kind, via, made.splices, closeFirst, made);
      if (who.door === "hook" && !diffReadsAsTruth(before, applySplices(before, step.splices), index)) {
        this.unfair[kind] = (this.unfair[kind] ?? 0) + 1;
        continue;
      }
      return step;
    }
    const splices = this.modify(before, who.owner, via, index, "modify")!;
    return this.step(index, path, who, "modify", via, splices, closeFirst);
  }

  /** The file as it will be once `step` is applied. */
  preview(step: Step): TruthLine[] {
    return applySplices(this.files.get(step.path) ?? [], step.splices);
  }

  /** A file-level step of `kind` (drawn from `rng`, a stream of its own), or undefined when the files do not allow one. */
  fileOp(kind: FileOpKind, index: number, actor: Actor, paths: readonly string[], rng: Prng): Step | undefined {
    this.fileOps ??= new FileOpDrawer(rng, this.files);
    return this.fileOps.draw(kind, index, actor, paths);
  }

  /** Makes the step part of the truth; `paths` (a file-level step's rename) follows. */
  commit(step: Step, paths: string[] = []): void {
    if (step.op) {
      applyFileOp(step, this.files, paths, applySplices);
      if (step.op.kind === "rename") for (const h of this.history) if (h.path === step.op.from) h.path = step.path;
      return;
    }
    let lines = this.files.get(step.path) ?? [];
    for (const s of step.splices) {
      const removed = lines.slice(s.at, s.at + s.remove).map((l) => ({ text: l.text, eol: l.eol }));
      lines = applySplices(lines, [s]);
      if (step.kind !== "whitespace") {
        const after = lines[s.at + s.insert.length];
        this.history.push({ path: step.path, insertedIds: s.insert.map((l) => l.id), removed, anchorId: after ? after.id : null });
      }
    }
    this.files.set(step.path, lines);
    if (this.history.length > 200) this.history.splice(0, this.history.length - 200);
  }

  // --- building blocks -------------------------------------------------------------------------------

  private editorVia(actor: Actor): Via {
    return actor.owner.type === "ai" ? "ai-editor" : "editor";
  }

  private weightedIndex(weights: readonly number[]): number {
    return Number(this.rng.weighted(Object.fromEntries(weights.map((w, i) => [String(i), w]))));
  }

  private pickKind(actor: Actor): EditKind {
    const weights = { ...this.kindWeights };
    if (actor.door === "hook") delete weights["type-undo"]; // agents do not type
    return this.rng.weighted(weights) as EditKind;
  }

  private step(
    index: number,
    path: string,
    actor: Actor,
    kind: EditKind,
    via: Via,
    splices: Splice[],
    closeFirst: boolean,
    extra: { oneNotification?: boolean; fine?: boolean; typing?: Typing[] } = {},
  ): Step {
    return {
      index,
      path,
      actor,
      kind,
      via,
      splices,
      editor: { oneNotification: extra.oneNotification ?? true, fine: extra.fine ?? false, typing: extra.typing ?? [] },
      hook: { preferEdit: this.rng.chance(0.7), reloadBeforeRecord: this.rng.chance(0.5), closeFirst },
    };
  }

  private line(text: string, eol: Eol, owner: Owner, kind: EditKind, via: Via, step: number, prev?: TruthLine): TruthLine {
    return { id: this.nextId++, text, eol, owner, kind, via, touch: step, ...(prev ? { prev: { id: prev.id, text: prev.text } } : {}) };
  }

  private eolNear(lines: readonly TruthLine[], at: number): Eol {
    return (lines[Math.min(at, lines.length - 1)] ?? lines[lines.length - 1])?.eol ?? "\n";
  }

  private make(
    kind: EditKind,
    lines: TruthLine[],
    actor: Actor,
    via: Via,
    step: number,
    path: string,
  ): { splices: Splice[]; oneNotification?: boolean; fine?: boolean; typing?: Typing[] } | undefined {
    const o = actor.owner;
    const agent = actor.door === "hook";
    switch (kind) {
      case "modify":
        return wrap(this.modify(lines, o, via, step, kind));
      case "insert-above":
        return wrap(this.insertAbove(lines, o, via, step, agent));
      case "delete":
        return wrap(this.deleteLines(lines, this.rng.int(1, 5)));
      case "block-move":
        return this.move(lines, o, via, step);
      case "copy-block":
        return wrap(this.copy(lines, o, via, step));
      case "interleaved":
        return wrap(this.interleaved(lines, o, via, step));
      case "large-paste":
        return wrap(lines.length > this.options.maxLines ? this.deleteLines(lines, this.rng.int(50, 200)) : this.largePaste(lines, o, via, step, agent));
      case "whitespace":
        return this.whitespace(lines, via, step);
      case "dup-blank-brace":
        return wrap(this.dupBlankBrace(lines, o, via, step));
      case "revert":
        return wrap(this.revert(lines, o, via, step, path));
      case "type-undo":
        return this.typeUndo(lines, o, via, step);
      default:
        return undefined;
    }
  }

  private modify(lines: TruthLine[], o: Owner, via: Via, step: number, kind: EditKind): Splice[] | undefined {
    if (!lines.length) return undefined;
    const s = this.rng.int(0, lines.length - 1);
    const k = this.rng.int(1, Math.min(4, lines.length - s));
    const insert = lines.slice(s, s + k).map((l) => this.line(this.writer.rewrite(l.text), l.eol, o, kind, via, step));
    return [{ at: s, remove: k, insert }];
  }

  private insertAbove(lines: TruthLine[], o: Owner, via: Via, step: number, uniqueEdges: boolean): Splice[] | undefined {
    const i = this.rng.int(0, lines.length - 1);
    const texts = this.writer.block(this.rng.int(1, 3), indentOf(lines[i]?.text ?? ""), uniqueEdges);
    return [{ at: i, remove: 0, insert: texts.map((t) => this.line(t, this.eolNear(lines, i), o, "insert-above", via, step)) }];
  }

  private deleteLines(lines: TruthLine[], count: number): Splice[] | undefined {
    const k = Math.min(count, lines.length - 10);
    if (k < 1) return undefined;
    return [{ at: this.rng.int(0, lines.length - k), remove: k, insert: [] }];
  }

  /** Cut and paste, far enough that a line diff sees the block (not the lines it jumped over) as moved. */
  private move(lines: TruthLine[], o: Owner, via: Via, step: number): { splices: Splice[]; oneNotification: boolean } | undefined {
    if (lines.length < 12) return undefined;
    const len = this.rng.int(2, Math.min(20, Math.floor(lines.length / 3)));
    const s = this.rng.int(0, lines.length - len);
    const rest = lines.length - len;
    const targets: number[] = [];
    for (let d = 0; d <= rest; d++) if (Math.abs(d - s) >= len + 2) targets.push(d);
    if (!targets.length) return undefined;
    const d = this.rng.pick(targets);
    const moved = lines.slice(s, s + len).map((l) => this.line(l.text, l.eol, o, "block-move", via, step));
    return {
      splices: [
        { at: s, remove: len, insert: [] },
        { at: d, remove: 0, insert: moved },
      ],
      oneNotification: false,
    };
  }

  private copy(lines: TruthLine[], o: Owner, via: Via, step: number): Splice[] | undefined {
    if (lines.length < 6) return undefined;
    const len = this.rng.int(2, Math.min(10, Math.floor(lines.length / 2)));
    const s = this.rng.int(0, lines.length - len);
    const d = this.rng.int(0, lines.length);
    const copies = lines.slice(s, s + len).map((l) => this.line(l.text, l.eol, o, "copy-block", via, step));
    return [{ at: d, remove: 0, insert: copies }];
  }

  /** A comment above each of N lines, as one multi-cursor edit or formatter run sends it: bottom-up. */
  private interleaved(lines: TruthLine[], o: Owner, via: Via, step: number): Splice[] | undefined {
    const n = this.rng.int(3, 12);
    const targets: number[] = [];
    let t = this.rng.int(0, Math.max(0, lines.length - 2 * n));
    while (targets.length < n && t < lines.length) {
      targets.push(t);
      t += this.rng.int(1, 4);
    }
    if (targets.length < 2) return undefined;
    return targets
      .reverse()
      .map((at) => ({ at, remove: 0, insert: [this.line(this.writer.comment(indentOf(lines[at]!.text)), lines[at]!.eol, o, "interleaved", via, step)] }));
  }

  /** Hundreds of lines pasted into the middle of the longest run of lines one owner wrote. */
  private largePaste(lines: TruthLine[], o: Owner, via: Via, step: number, uniqueEdges: boolean): Splice[] | undefined {
    let bestStart = 0;
    let bestLength = 0;
    let start = 0;
    for (let i = 1; i <= lines.length; i++) {
      if (i === lines.length || !sameOwner(lines[i]!.owner, lines[start]!.owner)) {
        if (i - start > bestLength) [bestStart, bestLength] = [start, i - start];
        start = i;
      }
    }
    const at = bestStart + Math.floor(bestLength / 2);
    const [min, max] = this.options.pasteLines;
    const texts = this.writer.block(this.rng.int(min, max), indentOf(lines[at]?.text ?? ""), uniqueEdges);
    return [{ at, remove: 0, insert: texts.map((t) => this.line(t, this.eolNear(lines, at), o, "large-paste", via, step)) }];
  }

  /** Reindenting, trailing blanks, line endings, spaces inside a line: the owner stays. */
  private whitespace(lines: TruthLine[], via: Via, step: number): { splices: Splice[]; oneNotification: boolean; fine: boolean } | undefined {
    const mode = this.rng.weighted({ reindent: 3, trailing: 2, eol: 2, inner: 2 });
    const whole = mode === "eol" && this.rng.chance(0.3);
    const s = whole ? 0 : this.rng.int(0, lines.length - 1);
    const e = whole ? lines.length : Math.min(lines.length, s + this.rng.int(3, 30));
    const how = this.rng.int(0, 2);
    const splices: Splice[] = [];
    for (let i = e - 1; i >= s; i--) {
      const l = lines[i]!;
      let text = l.text;
      let eol = l.eol;
      if (mode === "reindent" && text.trim()) {
        if (how === 0) text = `  ${text}`;
        else if (how === 1) text = text.replace(/^ {1,2}/, "");
        else text = text.replace(/^((?: {2})+)/, (m) => "\t".repeat(m.length / 2));
      } else if (mode === "trailing") {
        text = how === 2 ? text.replace(/[ \t]+$/, "") : `${text}${how === 0 ? "  " : "\t"}`;
      } else if (mode === "eol") {
        eol = l.eol === "\n" ? "\r\n" : "\n";
      } else if (mode === "inner") {
        text = how === 0 ? text.replace(/ = /, "  =  ") : how === 1 ? text.replace(/ = /, "=") : text.replace(/, /, ",   ");
      }
      if (text === l.text && eol === l.eol) continue;
      splices.push({ at: i, remove: 1, insert: [this.line(text, eol, l.owner, "whitespace", via, step, l)] });
    }
    // the owner stays, but the line's kind and path become the reformat's
    return splices.length ? { splices, oneNotification: true, fine: this.rng.chance(0.7) } : undefined;
  }

  private dupBlankBrace(lines: TruthLine[], o: Owner, via: Via, step: number): Splice[] | undefined {
    const mode = this.rng.weighted({ dup: 3, blank: 3, brace: 3, unpair: 2 });
    const mk = (text: string, eol: Eol) => this.line(text, eol, o, "dup-blank-brace", via, step);
    const find = (pred: (l: TruthLine, i: number) => boolean) => {
      const hits = lines.flatMap((l, i) => (pred(l, i) ? [i] : []));
      return hits.length ? this.rng.pick(hits) : undefined;
    };
    switch (mode) {
      case "dup": {
        const i = this.rng.int(0, lines.length - 1);
        return [{ at: i + 1, remove: 0, insert: [mk(lines[i]!.text, lines[i]!.eol)] }];
      }
      case "blank": {
        const i = find((l) => !l.text.trim()) ?? this.rng.int(0, lines.length - 1);
        return [{ at: i, remove: 0, insert: [mk("", this.eolNear(lines, i))] }];
      }
      case "brace": {
        const i = find((l) => /^\s*[{}]\s*;?$/.test(l.text));
        if (i === undefined) return [{ at: this.rng.int(0, lines.length), remove: 0, insert: [mk("}", this.eolNear(lines, 0))] }];
        return [{ at: i + this.rng.int(0, 1), remove: 0, insert: [mk(lines[i]!.text, lines[i]!.eol)] }];
      }
      case "unpair": {
        const i = find((l, k) => k + 1 < lines.length && normalizedText(l.text) === normalizedText(lines[k + 1]!.text));
        return i === undefined ? undefined : [{ at: i + this.rng.int(0, 1), remove: 1, insert: [] }];
      }
    }
    return undefined;
  }

  /** Puts back what an earlier change of this file replaced, if the lines it wrote are still there unchanged. */
  private revert(lines: TruthLine[], o: Owner, via: Via, step: number, path: string): Splice[] | undefined {
    const position = new Map(lines.map((l, i) => [l.id, i]));
    const candidates: Splice[] = [];
    for (const h of this.history.slice(-40)) {
      if (h.path !== path || (!h.insertedIds.length && !h.removed.length)) continue;
      let at: number | undefined;
      if (h.insertedIds.length) {
        at = position.get(h.insertedIds[0]!);
        if (at === undefined || !h.insertedIds.every((id, k) => lines[at! + k]?.id === id)) continue;
      } else {
        at = h.anchorId === null ? lines.length : position.get(h.anchorId);
        if (at === undefined) continue;
      }
      const insert = h.removed.map((r) => this.line(r.text, r.eol, o, "revert", via, step));
      candidates.push({ at, remove: h.insertedIds.length, insert });
    }
    if (!candidates.length || lines.length < 12) return undefined;
    return [this.rng.pick(candidates)];
  }

  /** Keystrokes typed and undone, then (half the time) one real change; the save must record only that. */
  private typeUndo(lines: TruthLine[], o: Owner, via: Via, step: number): { splices: Splice[]; typing: Typing[] } | undefined {
    const typing: Typing[] = [];
    for (let k = this.rng.int(1, 3); k > 0; k--) {
      const line = this.rng.int(0, lines.length - 1);
      typing.push(
        this.rng.chance(0.5)
          ? { line, character: 0, text: `${this.writer.code("")}\n` }
          : { line, character: this.rng.int(0, lines[line]!.text.length), text: "tmp" },
      );
    }
    const splices = this.rng.chance(0.5) ? (this.modify(lines, o, via, step, "type-undo") ?? []) : [];
    return { splices, typing };
  }
}

function wrap(splices: Splice[] | undefined): { splices: Splice[] } | undefined {
  return splices ? { splices } : undefined;
}
