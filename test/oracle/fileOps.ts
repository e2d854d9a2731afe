import { basename, dirname } from "node:path";
import type { Actor, Step } from "./generator";
import { LineWriter } from "./lineText";
import type { Prng } from "./prng";
import { diffReadsAsTruth } from "./fairness";
import { applySplices, normalizedText, type EditKind, type Splice, type TruthLine } from "./truth";

/**
 * Changes to files rather than to lines, drawn from a stream of their own (so the line edit streams stay as
 * they were): renames and moves by each door, a block moved or copied into another file (by the editor, or
 * cut and pasted by an agent's two writes in either order), and git rewriting
 * the files and the ledger (a rebase, a squash merge). Truth: content follows its author across paths
 * (docs/LEDGER.md "Renames, moves and copies"); a block moved or copied into another file keeps its owners
 * (as `git blame -C`); git rewriting history changes nobody's lines.
 */

export const FILE_OP_KINDS = [
  "git-rename",
  "editor-rename",
  "agent-shell-move",
  "agent-tool-move",
  "cross-file-move",
  "cross-file-copy",
  "agent-cross-file-move",
  "rebase",
  "squash-merge",
] as const satisfies readonly EditKind[];
/**
 * An agent's refactors across files, drawn at a cadence of their own (`SeedConfig.refactorEvery`): most of a
 * file split into a new module (git's copy detection then names the old file for it once committed), a
 * function-sized block extracted into a new file (too small for git to name), a whole file merged into
 * another. Each in either order (the new content first or the cut first) or one shell command, with Edit or
 * Write, its two calls in one session or in two, then committed by the person in one commit, in two, or not at all.
 */
export const REFACTOR_KINDS = ["agent-split", "agent-extract", "agent-merge"] as const satisfies readonly EditKind[];
export type RefactorKind = (typeof REFACTOR_KINDS)[number];
export type FileOpKind = (typeof FILE_OP_KINDS)[number] | RefactorKind;

/** How an agent's refactor writes its files: Edit or Write tool calls (the pasted new file is always a Write), or one shell command. */
export type RefactorTool = "edit" | "write" | "shell";
/** The person's commit after an agent's refactor: none, both files in one commit, or the pasted file first and the rest after. */
export type RefactorCommit = "none" | "together" | "apart";
/**
 * The sessions a refactor's two tool calls run in: one; two (the agent's session restarted between them, as
 * `/clear` does, the first one never ended); or two with the first ended (its SessionEnd hook ran).
 */
export type RefactorSessions = "one" | "two" | "two-ended";

/** How a file reaches its new path. */
export type RenameHow = "git" | "editor" | "shell-mv" | "shell-git-mv" | "mcp" | "codex";

export type FileOp =
  /** `from` renamed to the step's path; the step's splices (a person's edit, same commit) apply after. */
  | { kind: "rename"; from: string; how: RenameHow }
  /** Lines [start, start+length) of `from` pasted into the step's path (the step's splice); `cut` removes them from `from`. */
  | { kind: "block"; from: string; start: number; length: number; cut: boolean; cutSavedFirst: boolean }
  /**
   * An agent's refactor: lines [start, start+length) of `from` cut, the step's splice pasting them (with the
   * agent's own lines) into the step's path, a new file when `newFile`.
   */
  | {
      kind: "refactor";
      from: string;
      start: number;
      length: number;
      newFile: boolean;
      cutFirst: boolean;
      tool: RefactorTool;
      commit: RefactorCommit;
      sessions: RefactorSessions;
      /** The agent's own lines left in the cut's place (a merged module's re-export), usually none. */
      left: TruthLine[];
    }
  /** git rewrites the branch: the side branch rebased onto main, or squash-merged into it. */
  | { kind: "history"; how: "rebase" | "squash-merge" };

const DIRS = ["src/engine", "src/lib", "src/api/v2", "src/core"];

/** Draws file-level steps; `files` is the generator's truth, which `applyFileOp` updates. */
export class FileOpDrawer {
  private readonly writer: LineWriter;
  private renames = 0;

  constructor(
    private readonly rng: Prng,
    private readonly files: Map<string, TruthLine[]>,
  ) {
    this.writer = new LineWriter(rng.fork(7));
  }

  /** A step of `kind` by `actor`, or undefined when the world does not allow one (too few lines). */
  draw(kind: FileOpKind, index: number, actor: Actor, paths: readonly string[]): Step | undefined {
    const owner = actor.owner;
    const via = actor.door === "editor" ? (owner.type === "ai" ? "ai-editor" : "editor") : "agent-closed";
    const base = (path: string, splices: Splice[], op: FileOp): Step => ({
      index,
      path,
      actor,
      kind,
      via,
      splices,
      editor: { oneNotification: true, fine: false, typing: [] },
      hook: { preferEdit: false, reloadBeforeRecord: false, closeFirst: false },
      op,
    });
    switch (kind) {
      case "git-rename":
      case "editor-rename":
      case "agent-shell-move":
      case "agent-tool-move": {
        const from = this.rng.pick(paths);
        const to = this.newPath(from, paths);
        const how: RenameHow =
          kind === "git-rename"
            ? "git"
            : kind === "editor-rename"
              ? "editor"
              : kind === "agent-tool-move"
                ? actor.name === "codex"
                  ? "codex"
                  : "mcp"
                : this.rng.chance(0.5)
                  ? "shell-mv"
                  : "shell-git-mv";
        const lines = this.files.get(from)!;
        // half of the git renames come with a person's edit of the renamed file in the same commit
        const splices: Splice[] = [];
        if (kind === "git-rename" && this.rng.chance(0.5) && lines.length) {
          const s = this.rng.int(0, lines.length - 1);
          const k = this.rng.int(1, Math.min(3, lines.length - s));
          splices.push({ at: s, remove: k, insert: lines.slice(s, s + k).map((l) => this.line(this.writer.rewrite(l.text), l, actor, kind, index, true)) });
        }
        // Codex's patch moves a file only with a change (an Update File without a hunk is no patch Codex
        // reads): a line its patch can name, unique in the file
        if (how === "codex") {
          const unique = lines.flatMap((l, i) =>
            l.text.trim().length >= 8 && lines.filter((m) => normalizedText(m.text) === normalizedText(l.text)).length === 1 ? [i] : [],
          );
          if (unique.length) {
            const s = this.rng.pick(unique);
            const text = this.writer.rewrite(lines[s]!.text);
            const line: TruthLine = { id: nextId(), text, eol: lines[s]!.eol, owner: actor.owner, kind, via: "agent-closed", touch: index };
            const after = applySplices(lines, [{ at: s, remove: 1, insert: [line] }]);
            if (!lines.some((l) => normalizedText(l.text) === normalizedText(text)) && diffReadsAsTruth(lines, after, index))
              splices.push({ at: s, remove: 1, insert: [line] });
          }
        }
        if (how === "codex" && !splices.length) return undefined;
        return base(to, splices, { kind: "rename", from, how });
      }
      case "cross-file-move":
      case "cross-file-copy":
      case "agent-cross-file-move": {
        if (paths.length < 2) return undefined;
        const from = this.rng.pick(paths);
        const to = this.rng.pick(paths.filter((p) => p !== from));
        const source = this.files.get(from)!;
        const dest = this.files.get(to)!;
        const cut = kind !== "cross-file-copy";
        if (source.length < (cut ? 16 : 6)) return undefined;
        const length = this.rng.int(2, Math.min(8, Math.floor(source.length / 3)));
        const start = this.rng.int(0, source.length - length);
        const block = source.slice(start, start + length);
        // the server finds a block of at least two lines with git's copy score (docs/LEDGER.md)
        if (block.map((l) => l.text.replace(/[^A-Za-z0-9]/g, "")).join("").length < 40) return undefined;
        const at = this.rng.int(0, dest.length);
        const moved = block.map((l) => this.line(l.text, l, actor, kind, index, false));
        // half of an agent's moves also copy a block the source keeps (a file split apart keeps its imports in
        // both halves): it keeps its owners too, as git blame -C credits a copy from a file the commit changed
        const copy = kind === "agent-cross-file-move" && this.rng.chance(0.5) ? this.copiedAlong(source, dest, start, length) : undefined;
        const copied = (copy ?? []).map((l) => this.line(l.text, l, actor, kind, index, false));
        const insert = this.rng.chance(0.5) ? [...copied, ...moved] : [...moved, ...copied];
        return base(to, [{ at, remove: 0, insert }], { kind: "block", from, start, length, cut, cutSavedFirst: this.rng.chance(0.5) });
      }
      case "rebase":
      case "squash-merge":
        return base(paths[0]!, [], { kind: "history", how: kind });
      case "agent-split":
      case "agent-extract":
      case "agent-merge":
        return this.refactor(kind, index, actor, paths, base);
    }
  }

  /** An agent's refactor (`REFACTOR_KINDS`), or undefined when the files do not allow one a line diff reads as drawn. */
  private refactor(
    kind: RefactorKind,
    index: number,
    actor: Actor,
    paths: readonly string[],
    base: (path: string, splices: Splice[], op: FileOp) => Step,
  ): Step | undefined {
    const from = this.rng.pick(paths);
    const source = this.files.get(from)!;
    let start: number;
    let length: number;
    let to: string;
    if (kind === "agent-merge") {
      if (paths.length < 2 || !source.length) return undefined;
      to = this.rng.pick(paths.filter((p) => p !== from));
      start = 0;
      length = source.length;
    } else {
      const n = source.length;
      if (n < (kind === "agent-split" ? 16 : 8)) return undefined;
      // a split takes most of the file (git then reports the new module as a copy of it); an extraction a function
      length = kind === "agent-split" ? this.rng.int(Math.ceil(n * 0.6), n - 2) : this.rng.int(3, Math.min(10, Math.floor(n / 3)));
      start = this.rng.int(0, n - length);
      to = this.newPath(from, paths);
    }
    const block = source.slice(start, start + length);
    if (block.map((l) => l.text.replace(/[^A-Za-z0-9]/g, "")).join("").length < 40) return undefined;
    const dest = this.files.get(to) ?? [];
    const moved = block.map((l) => this.line(l.text, l, actor, kind, index, false));
    // a shell command appends (cat >>) or writes the new file whole; the tools may add the agent's own lines
    const tool: RefactorTool = this.rng.pick(["edit", "write", "shell"] as const);
    const own: TruthLine[] =
      tool !== "shell" && this.rng.chance(0.5)
        ? [{ id: nextId(), text: this.writer.comment(""), eol: block[0]!.eol, owner: actor.owner, kind, via: "agent-closed", touch: index }]
        : [];
    const at = kind === "agent-merge" ? dest.length : 0;
    const insert = [...own, ...moved];
    // a merged module is left re-exporting the one it was folded into (an empty file is no module)
    const left: TruthLine[] =
      kind === "agent-merge"
        ? [
            {
              id: nextId(),
              text: `export * from "./${basename(to).replace(/\.ts$/, "")}";`,
              eol: block[0]!.eol,
              owner: actor.owner,
              kind,
              via: "agent-closed",
              touch: index,
            },
          ]
        : [];
    const cutAfter = applySplices(source, [{ at: start, remove: length, insert: left }]);
    // the lines a diff of the destination must read as inserted: the pasted ones with the agent's own
    const written = applySplices(dest, [{ at, remove: 0, insert: insert.map((l) => ({ ...l, touch: index })) }]);
    // the agent's writes reach intent-lsp as content: only changes a line diff reads as drawn
    if (!diffReadsAsTruth(source, cutAfter, index) || (dest.length && !diffReadsAsTruth(dest, written, index))) return undefined;
    if (own.length && [...source, ...dest].some((l) => normalizedText(l.text) === normalizedText(own[0]!.text))) return undefined;
    const commit: RefactorCommit = this.rng.pick(["none", "together", "apart"] as const);
    // a shell command is one call, so one session
    const sessions: RefactorSessions = tool === "shell" ? "one" : this.rng.pick(["one", "two", "two-ended"] as const);
    return base(to, [{ at, remove: 0, insert }], {
      kind: "refactor",
      from,
      start,
      length,
      newFile: !this.files.has(to),
      cutFirst: this.rng.chance(0.5),
      tool,
      commit,
      sessions,
      left,
    });
  }

  /**
   * A block of `source` outside the cut `[start, start + length)` that the server takes as copied: two to
   * four lines with git's copy score, found nowhere else in `source` and nowhere in `dest` (so which lines
   * it came from, and that it is not the destination's own text, is certain). Undefined when none is drawn.
   */
  private copiedAlong(source: readonly TruthLine[], dest: readonly TruthLine[], start: number, length: number): TruthLine[] | undefined {
    const texts = source.map((l) => normalizedText(l.text));
    const destTexts = dest.map((l) => normalizedText(l.text));
    const occurs = (hay: readonly string[], needle: readonly string[]) => hay.filter((_, i) => needle.every((t, k) => hay[i + k] === t)).length;
    for (let attempt = 0; attempt < 8; attempt++) {
      const n = this.rng.int(2, 4);
      if (source.length < n) return undefined;
      const s = this.rng.int(0, source.length - n);
      if (s + n > start && s < start + length) continue;
      const block = source.slice(s, s + n);
      const needle = texts.slice(s, s + n);
      if (block.map((l) => l.text.replace(/[^A-Za-z0-9]/g, "")).join("").length < 40) continue;
      if (occurs(texts, needle) !== 1 || occurs(destTexts, needle) !== 0) continue;
      return block;
    }
    return undefined;
  }

  /** A path in another folder or under another name, not taken. */
  private newPath(from: string, taken: readonly string[]): string {
    const stem = basename(from).replace(/(-\d+)?\.ts$/, "");
    for (;;) {
      const dir = this.rng.chance(0.5) ? dirname(from) : this.rng.pick(DIRS);
      const to = `${dir}/${stem}-${++this.renames}.ts`;
      if (!taken.includes(to)) return to;
    }
  }

  /** `changed`: a line the actor wrote (the actor owns it); else a copy of `l` that keeps its owner and last touch. */
  private line(text: string, l: TruthLine, actor: Actor, kind: EditKind, step: number, changed: boolean): TruthLine {
    return changed
      ? { id: nextId(), text, eol: l.eol, owner: actor.owner, kind, via: actor.owner.type === "ai" ? "ai-editor" : "editor", touch: step }
      : { ...l, id: nextId(), kind, rowStep: step, ...(l.contentOnly || isAgent(l) ? { contentOnly: true } : {}) };
  }
}

function isAgent(l: TruthLine): boolean {
  return l.via.startsWith("agent-");
}

let ids = 1_000_000_000;
/** Ids of lines file operations make, apart from the generator's own (which count from 1). */
function nextId(): number {
  return ids++;
}

/** The truth after a file-level step: `files` updated; the paths list keeps each file at its place (its weight). */
export function applyFileOp(step: Step, files: Map<string, TruthLine[]>, paths: string[], apply: (lines: TruthLine[], splices: Splice[]) => TruthLine[]): void {
  const op = step.op!;
  switch (op.kind) {
    case "rename": {
      const lines = files.get(op.from)!.map((l) => ({ ...l, kind: step.kind, rowStep: step.index, ...(isAgent(l) ? { contentOnly: true } : {}) }));
      files.delete(op.from);
      files.set(step.path, apply(lines, step.splices));
      paths[paths.indexOf(op.from)] = step.path;
      return;
    }
    case "block": {
      if (op.cut) files.set(op.from, apply(files.get(op.from)!, [{ at: op.start, remove: op.length, insert: [] }]));
      files.set(step.path, apply(files.get(step.path)!, step.splices));
      return;
    }
    case "refactor": {
      files.set(op.from, apply(files.get(op.from)!, [{ at: op.start, remove: op.length, insert: op.left }]));
      files.set(step.path, apply(files.get(step.path) ?? [], step.splices));
      if (!paths.includes(step.path)) paths.push(step.path);
      return;
    }
    case "history":
      for (const p of paths)
        files.set(
          p,
          files.get(p)!.map((l) => ({ ...l, kind: step.kind, rowStep: step.index, ...(isAgent(l) ? { contentOnly: true } : {}) })),
        );
      return;
  }
}
