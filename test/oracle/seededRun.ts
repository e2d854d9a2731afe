import { seenLabel, type Seen } from "./answers";
import { drawArrival, drawFileOpArrival, type ArrivalOrder } from "./arrivalOrders";
import { checkClaims, classify, compareLines } from "./compare";
import { BlobOwners, parseLinePorcelain, repeatedLines } from "./gitReading";
import { EditStreamGenerator, type Step } from "./generator";
import { FILE_OP_KINDS, REFACTOR_KINDS, type FileOp, type FileOpKind } from "./fileOps";
import { carryOutFileOp } from "./fileOpSteps";
import { readFileSync } from "node:fs";
import { Prng } from "./prng";
import { Report, type Surface } from "./report";
import { CODEX, contributorOf, CONTRIBUTORS, World } from "./setup";
import { fileText, isAgentVia, normalizedText, ownerLabel, type EditKind, type TruthLine } from "./truth";

/**
 * One seed of the edit-stream oracle: create the files, then `steps` generated steps, each carried out
 * through the editor or an agent's hook, each followed by the checks (the records it appended; hover on
 * the file; every `blameEvery` steps, `intent blame --json` on every file).
 */

export interface SeedConfig {
  seed: number;
  steps: number;
  files: readonly { path: string; lines: number; weight: number }[];
  pasteLines: [number, number];
  maxLines: number;
  blameEvery: number;
  actorWeights?: Readonly<Record<string, number>>;
  kindWeights?: Partial<Record<EditKind, number>>;
  /** A file-level step (fileOps.ts) every N steps; 0: none. Default 10. */
  fileOpEvery?: number;
  /** An agent's refactor across files (fileOps.ts `REFACTOR_KINDS`) every N steps; 0 (default): none. */
  refactorEvery?: number;
  log?: (line: string) => void;
  /** Every step, record and disagreement, for debugging the harness or the server. */
  trace?: (line: string) => void;
}

export const DEFAULT_ACTOR_WEIGHTS: Readonly<Record<string, number>> = { human: 40, copilot: 7, sonnet: 20, opus: 17, gpt: 16 };

export async function runSeed(cfg: SeedConfig): Promise<Report> {
  const world = await World.create();
  try {
    return await new SeedRun(cfg, world).run();
  } finally {
    await world.dispose();
  }
}

class SeedRun {
  private readonly rng: Prng;
  private readonly gen: EditStreamGenerator;
  private readonly report = new Report();
  private readonly name: string;
  private readonly weights: Readonly<Record<string, number>>;
  /** Draws each step's arrival order, from its own stream so that the edit streams stay as they were. */
  private readonly arrivalRng: Prng;
  /** The arrival order of each step (by index): the `order` row of the lines it changed. */
  private readonly orders = new Map<number, ArrivalOrder>();
  /** Draws file-level steps (renames, moves, cross-file blocks, rebases), from a stream of their own. */
  private readonly fileOpRng: Prng;
  /** The files' current paths, each at its config's place (its weight): a rename replaces the old path. */
  private readonly paths: string[];
  private fileOpsDone = 0;
  private refactorsDone = 0;
  /** Each refactor step's row (by index): what it did, in which order, and how it was committed. */
  private readonly refactors = new Map<number, { refactor: string; "refactor-tool": string }>();
  /** Every content the files had at a step's end, with its owners: what git's reading of a moved line is looked up in. */
  private readonly blobs = new BlobOwners();
  /** HEAD after the last step: a step that moved it made a commit, after which moved lines are checked against git. */
  private head = "";

  constructor(
    private readonly cfg: SeedConfig,
    private readonly world: World,
  ) {
    this.rng = new Prng(cfg.seed);
    this.name = `seed ${cfg.seed}`;
    this.arrivalRng = new Prng((cfg.seed * 7919) ^ 0x0a11);
    this.fileOpRng = new Prng((cfg.seed * 104729) ^ 0x0f11e);
    this.paths = cfg.files.map((f) => f.path);
    this.weights = cfg.actorWeights ?? DEFAULT_ACTOR_WEIGHTS;
    this.gen = new EditStreamGenerator(this.rng.fork(2), {
      actors: CONTRIBUTORS.filter((c) => (this.weights[c.actor.name] ?? 0) > 0).map((c) => ({ actor: c.actor, weight: this.weights[c.actor.name]! })),
      pasteLines: cfg.pasteLines,
      maxLines: cfg.maxLines,
      ...(cfg.kindWeights ? { kindWeights: cfg.kindWeights } : {}),
    });
  }

  async run(): Promise<Report> {
    const started = Date.now();
    const paths = this.paths;
    let index = 0;
    for (const f of this.cfg.files) {
      const name = this.rng.weighted(this.weights);
      const creator = CONTRIBUTORS.find((c) => c.actor.name === name)!;
      await this.execute(this.gen.creation(index++, f.path, f.lines, creator.actor));
    }
    // a run stopped after a step (its workspace kept with INTENT_ORACLE_KEEP), to look at what that step left
    const stopAt = Number(process.env["INTENT_ORACLE_STOP_AFTER"] ?? Number.POSITIVE_INFINITY);
    for (let k = 0; k < this.cfg.steps; k++) {
      if (index > stopAt) break;
      const step =
        this.fileOpDue(k, index) ??
        this.refactorDue(k, index) ??
        this.gen.next(
          index,
          paths,
          (p) => this.world.editor.isOpen(p),
          // a file a refactor made is edited as often as the least edited configured file
          paths.map((_, i) => this.cfg.files[i]?.weight ?? Math.min(...this.cfg.files.map((f) => f.weight))),
        );
      index++;
      await this.execute(step);
      if (k % 25 === 24) this.cfg.log?.(`${this.name}: ${k + 1}/${this.cfg.steps} steps, ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    await this.checkpoint(index, paths, true);
    const unfair = Object.entries(this.gen.unfair)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ");
    this.report.notes.push(
      `${this.name}: ${this.cfg.steps} steps over ${paths.length} files in ${((Date.now() - started) / 1000).toFixed(1)} s; final files ${paths.map((p) => `${p} (${this.gen.files.get(p)!.length} lines)`).join(", ")}; agent changes redrawn as ambiguous for a line diff: ${unfair || "none"}`,
    );
    return this.report;
  }

  /**
   * Every `fileOpEvery` steps (from the 6th), a file-level step, its kind in turn (starting at the seed, so
   * that a few seeds see every kind); undefined otherwise or when the files do not allow that kind now.
   */
  private fileOpDue(k: number, index: number): Step | undefined {
    const every = this.cfg.fileOpEvery ?? 10;
    if (!every || k % every !== Math.min(5, every - 1)) return undefined;
    const kind: FileOpKind = FILE_OP_KINDS[(this.cfg.seed + this.fileOpsDone++) % FILE_OP_KINDS.length]!;
    const hook = kind === "agent-shell-move" || kind === "agent-tool-move" || kind === "agent-cross-file-move";
    const git = kind === "git-rename" || kind === "rebase" || kind === "squash-merge";
    const who = CONTRIBUTORS.filter((c) => (this.weights[c.actor.name] ?? 0) > 0 && (hook ? c.agent : !c.agent) && (!git || c.actor.owner.type === "human"));
    if (!who.length) return undefined;
    // half of the agents' move tools are Codex's apply_patch, the other half an MCP move_file
    const actor = kind === "agent-tool-move" && this.fileOpRng.chance(0.5) ? CODEX.actor : this.fileOpRng.pick(who).actor;
    return this.gen.fileOp(kind, index, actor, this.paths, this.fileOpRng);
  }

  /** Every `refactorEvery` steps (from the 3rd), an agent's refactor, its kind in turn; undefined otherwise or when none fits now. */
  private refactorDue(k: number, index: number): Step | undefined {
    const every = this.cfg.refactorEvery ?? 0;
    if (!every || k % every !== Math.min(2, every - 1)) return undefined;
    const kind = REFACTOR_KINDS[(this.cfg.seed + this.refactorsDone++) % REFACTOR_KINDS.length]!;
    const who = CONTRIBUTORS.filter((c) => (this.weights[c.actor.name] ?? 0) > 0 && c.agent);
    if (!who.length) return undefined;
    const step = this.gen.fileOp(kind, index, this.fileOpRng.pick(who).actor, this.paths, this.fileOpRng);
    if (step?.op?.kind === "refactor") this.refactors.set(step.index, refactorRows(step.kind, step.op));
    return step;
  }

  private async execute(step: Step): Promise<void> {
    try {
      await this.carryOut(step);
    } catch (err) {
      throw new Error(`${this.name}, step ${step.index} (${step.actor.name} ${step.kind} via ${step.via} on ${step.path}): ${(err as Error).message}`, {
        cause: err,
      });
    }
    const before = this.gen.files.get(step.op?.kind === "rename" ? step.op.from : step.path);
    this.cfg.trace?.(
      `step ${step.index}: ${step.actor.name} ${step.kind} via ${step.via} on ${step.path}: ${step.splices.map((s) => `@${s.at + 1} -${s.remove} +${s.insert.length}`).join(" ")}${step.editor.typing.length ? ` typed+undone ${step.editor.typing.length}` : ""}${step.op?.kind === "refactor" ? ` from ${step.op.from} [${this.refactors.get(step.index)?.refactor}, ${step.op.tool}]` : ""}`,
    );
    this.gen.commit(step, this.paths);
    // each file's content at the step's end, by blob id (with its owners kept for git's reading)
    const blobAt = new Map<string, string>();
    for (const p of this.paths) {
      const lines = this.gen.files.get(p);
      if (lines) blobAt.set(p, this.blobs.remember(lines));
    }
    this.checkRecords(step, before ?? []);
    const blameDue = step.index % this.cfg.blameEvery === 0;
    // a cut, a paste and git changed more than the step's own file
    const touched =
      step.op?.kind === "block" || step.op?.kind === "refactor" ? [step.path, step.op.from] : step.op?.kind === "history" ? this.paths : [step.path];
    const answers = await this.checkpoint(step.index, blameDue ? this.paths : touched, blameDue);
    const head = (await this.world.git("rev-parse", "HEAD")).trim();
    if (head !== this.head) await this.checkGitReading(step.index, head, answers, blobAt);
    this.head = head;
  }

  /**
   * After a commit: every moved line (its row a move across files) whose text is unique in its file and in the
   * origin file git names, and which `git blame -w -C -C` traces to another file, judged against the owner
   * that origin line had (gitReading.ts). Only files whose content (`blobAt`, the step's end) is HEAD's, so
   * that git's lines are the workspace's.
   */
  private async checkGitReading(
    step: number,
    head: string,
    answers: ReadonlyMap<string, { blamed?: Seen[]; hover?: Seen[] }>,
    blobAt: ReadonlyMap<string, string>,
  ): Promise<void> {
    for (const path of this.paths) {
      const lines = this.gen.files.get(path);
      if (!lines?.length) continue;
      const moved = lines.flatMap((l, i) => (MOVED_KINDS.has(l.kind) ? [i] : []));
      if (!moved.length) continue;
      const atHead = (await this.world.git("rev-parse", "--verify", "--quiet", `${head}:${path}`).catch(() => "")).trim();
      if (atHead !== blobAt.get(path)) continue;
      const origins = parseLinePorcelain(await this.world.git("blame", "-w", "-C", "-C", "--line-porcelain", head, "--", path));
      const blobOf = await this.blobsOf(origins.filter((o) => o.path !== path).map((o) => `${o.commit}:${o.path}`));
      const seen = answers.get(path)?.blamed ?? (await this.world.blame(path));
      const hover = answers.get(path)?.hover;
      const twins = repeatedLines(lines.map((l) => l.text));
      for (const i of moved) {
        const l = lines[i]!;
        const at = l.rowStep ?? l.touch;
        const row = this.refactors.get(at)?.refactor ?? l.kind;
        const origin = origins[i];
        const blob = origin ? (blobOf.get(`${origin.commit}:${origin.path}`) ?? "") : "";
        if (!origin || origin.path === path || twins.has(i) || this.blobs.repeatedAt(blob, origin.origLine)) {
          this.report.countGitReading(row, (t) => t.notDetected++);
          continue;
        }
        const owner = this.blobs.ownerAt(blob, origin.origLine);
        if (!owner) {
          this.report.countGitReading(row, (t) => {
            t.detected++;
            t.skipped++;
          });
          continue;
        }
        const outcome = classify(owner, seen[i]!);
        const hoverOutcome = hover && classify(owner, hover[i]!);
        this.report.countGitReading(row, (t) => {
          t.detected++;
          t.outcomes[outcome]++;
          if (hoverOutcome) t.hoverAsked++;
          if (hoverOutcome === "correct") t.hoverAgrees++;
          if (ownerLabel(owner) === ownerLabel(l.owner)) t.truthAgrees++;
        });
        if (outcome !== "correct" || ownerLabel(owner) !== ownerLabel(l.owner)) {
          this.report.example({
            run: this.name,
            step,
            path,
            line: i + 1,
            surface: "git",
            outcome: outcome === "correct" ? "truth ≠ git" : outcome,
            truth: `git ${origin.path}:${origin.origLine}@${origin.commit.slice(0, 7)}: ${ownerLabel(owner)}; truth ${ownerLabel(l.owner)}`,
            seen: seenLabel(seen[i]!),
            kind: l.kind,
            via: l.via,
            text: l.text,
          });
        }
      }
    }
  }

  /** The blob each `commit:path` names, asked of git in one call. */
  private async blobsOf(specs: readonly string[]): Promise<Map<string, string>> {
    const unique = [...new Set(specs)];
    const out = new Map<string, string>();
    if (!unique.length) return out;
    const answer = await this.world.gitWithInput(`${unique.join("\n")}\n`, "cat-file", "--batch-check=%(objectname) %(objecttype)");
    answer
      .trim()
      .split("\n")
      .forEach((line, k) => {
        const [id, type] = line.split(" ");
        if (type === "blob") out.set(unique[k]!, id!);
      });
    return out;
  }

  private async carryOut(step: Step): Promise<void> {
    if (step.op) {
      const order = drawFileOpArrival(this.arrivalRng, step);
      this.orders.set(step.index, order);
      const files = this.gen.files;
      return carryOutFileOp(this.world, step, order, this.paths, files.get(step.op.kind === "rename" ? step.op.from : step.path) ?? [], (p) => files.get(p)!);
    }
    const { editor, agents, ws } = this.world;
    const existed = this.gen.files.has(step.path);
    const before = existed ? fileText(this.gen.files.get(step.path)!) : "";
    const after = fileText(this.gen.preview(step));
    const who = contributorOf(step.actor);
    const order = drawArrival(this.arrivalRng, step, editor.isOpen(step.path) && !step.hook.closeFirst);
    this.orders.set(step.index, order);
    if (existed) expectText(ws.read(step.path), before, "the file on disk before the step");
    if (step.actor.door === "editor") {
      const o = step.actor.owner;
      await editor.setContributor(o.type === "ai" ? { type: "ai", modelId: o.modelId! } : { type: "human" });
      if (!existed) ws.write(step.path, "");
      if (!editor.isOpen(step.path)) await editor.open(step.path);
      expectText(editor.text(step.path), before, "the editor's buffer before the step");
      await editor.typeAndUndo(step.path, step.editor.typing);
      await editor.edit(step.path, step.splices, step.editor);
      expectText(editor.text(step.path), after, "the editor's buffer after the edits");
      if (order === "save-close-open") await editor.saveCloseOpen(step.path);
      else await editor.save(step.path);
      return;
    }
    if (step.hook.closeFirst && editor.isOpen(step.path)) await editor.close(step.path);
    const open = editor.isOpen(step.path);
    const style = step.via === "agent-open-hunks" ? "hunks" : "region";
    const reload = () => editor.reload(step.path, style);
    // the events between the agent's file write and its PostToolUse record, in this step's order
    const beforeRecord: Partial<Record<ArrivalOrder, () => Promise<void>>> = {
      plain: open && step.hook.reloadBeforeRecord ? reload : undefined,
      "hunks-each-before-record": () => editor.replaceText(step.path, readFileSync(ws.path(step.path), "utf8"), "hunks", false),
      "watcher-reload-record": async () => {
        await editor.watched(step.path);
        await reload();
      },
      "reload-watcher-record": async () => {
        await reload();
        await editor.watched(step.path);
      },
      "record-watcher-reload": undefined,
      "open-save-before-record": async () => {
        await editor.open(step.path);
        await editor.save(step.path);
      },
      "save-close-open": undefined,
    };
    const afterWrite = beforeRecord[order];
    await agents.write(who.agent!, step.path, before, after, { preferEdit: step.hook.preferEdit, created: !existed, ...(afterWrite ? { afterWrite } : {}) });
    if (order === "record-watcher-reload") {
      await editor.watched(step.path);
      await reload();
    } else if (order === "plain" && open && !step.hook.reloadBeforeRecord) await reload();
    await editor.barrier();
    if (open) expectText(editor.text(step.path), after, "the editor's buffer after the reload");
  }

  /** Every record the step appended claims only lines its contributor changed, under its own name. */
  private checkRecords(step: Step, before: readonly TruthLine[]): void {
    const lines = this.gen.files.get(step.path)!;
    const texts = lines.map((l) => l.text);
    const changed = new Set(lines.flatMap((l, i) => (l.touch === step.index ? [i + 1] : [])));
    const rows = { kind: step.kind, via: step.via, order: this.orders.get(step.index) ?? "plain", ...this.refactors.get(step.index) };
    const records = this.world.ledger.readNew();
    for (const [i, r] of records.entries()) {
      this.cfg.trace?.(
        `  record ${r.id.slice(0, 8)}: ${r.claims.map((c) => `${c.type}${c.modelId ? `:${c.modelId}` : ""}@${c.intentId} ${c.path} ${c.ranges.map(([a, b]) => `${a}-${b}`).join(",")}`).join("; ")}`,
      );
      const givenBack = new Set(records.slice(i + 1).flatMap((later) => later.movedIn.filter((m) => m.path === step.path).flatMap((m) => m.lines)));
      const check = checkClaims(r, step.path, texts, changed, step.actor.owner, "runs", givenBack);
      this.report.countClaims(rows, check);
      for (const n of check.overClaimed.slice(0, 3)) {
        const l = lines[n - 1];
        this.report.example({
          run: this.name,
          step: step.index,
          path: step.path,
          line: n,
          surface: "record",
          outcome: "over-claimed",
          truth: l ? ownerLabel(l.owner) : "(past the end)",
          seen: `${step.actor.name} record ${r.id.slice(0, 8)}`,
          kind: l?.kind ?? "-",
          via: l?.via ?? "-",
          text: l?.text ?? "",
        });
      }
    }
    // a change of the step's file with no record of that file (another file's record of the same step does not count)
    const visible = (ls: readonly TruthLine[]) => ls.map((l) => normalizedText(l.text)).join("\n");
    const ofPath = records.some((r) => r.claims.some((c) => c.path === step.path) || r.movedIn.some((m) => m.path === step.path));
    if (!ofPath && visible(before) !== visible(lines)) this.report.countRecord(rows, { missing: 1 });
  }

  /**
   * Hover on each of `paths` open in the editor; with `blame`, `intent blame --json` on each as well. Returns
   * the answers it asked for, hover's and blame's, by path.
   */
  private async checkpoint(step: number, paths: readonly string[], blame: boolean): Promise<Map<string, { blamed?: Seen[]; hover?: Seen[] }>> {
    const answers = new Map<string, { blamed?: Seen[]; hover?: Seen[] }>();
    for (const path of paths) {
      const lines = this.gen.files.get(path);
      // an emptied file (its creation reverted) has no line to compare; an editor shows it as one empty line
      if (!lines?.length) continue;
      const hover = this.world.editor.isOpen(path) ? await this.world.editor.hoverAll(path) : undefined;
      // every step ends with the file saved or reloaded (its buffer is the file on disk): hover = blame is asked every time
      const blamed = blame || hover ? await this.world.blame(path) : undefined;
      if (hover) this.count("hover", step, path, lines, hover);
      if (blamed) this.count("blame", step, path, lines, blamed);
      answers.set(path, { ...(blamed ? { blamed } : {}), ...(hover ? { hover } : {}) });
      if (hover && blamed) {
        this.report.bothAsked += lines.length;
        hover.forEach((h, i) => {
          if (seenLabel(h) === seenLabel(blamed[i]!)) return;
          this.report.disagreements++;
          const l = lines[i]!;
          this.report.example({
            run: this.name,
            step,
            path,
            line: i + 1,
            surface: "hover",
            outcome: "hover ≠ blame",
            truth: `blame: ${seenLabel(blamed[i]!)}`,
            seen: seenLabel(h),
            kind: l.kind,
            via: l.via,
            text: l.text,
          });
        });
      }
    }
    return answers;
  }

  private count(surface: Surface, step: number, path: string, lines: readonly TruthLine[], seen: readonly Seen[]): void {
    const outcomes = compareLines(
      lines.map((l) => ({ text: l.text, owner: l.owner, contentOnly: isAgentVia(l.via) || l.contentOnly === true })),
      seen,
    );
    outcomes.forEach(({ outcome, seen: judged }, i) => {
      const l = lines[i]!;
      const at = l.rowStep ?? l.touch;
      this.report.countLine(surface, outcome, {
        kind: l.kind,
        via: l.via,
        order: this.orders.get(at) ?? "plain",
        ...this.refactors.get(at),
        ...(surface === "blame" ? { confidence: confidenceLabel(judged) } : {}),
      });
      if (outcome !== "correct") {
        this.report.example({
          run: this.name,
          step,
          path,
          line: i + 1,
          surface,
          outcome,
          truth: ownerLabel(l.owner),
          seen: seenLabel(judged),
          kind: l.kind,
          via: l.via,
          text: l.text,
        });
      }
    });
  }
}

/** Rows of lines moved across files: what git's copy detection can trace to the file they came from. */
const MOVED_KINDS: ReadonlySet<EditKind> = new Set(["cross-file-move", "agent-cross-file-move", "agent-split", "agent-extract", "agent-merge"]);

/** A refactor's rows: what and in which order, committed how; and what and with which tool. */
function refactorRows(kind: string, op: Extract<FileOp, { kind: "refactor" }>): { refactor: string; "refactor-tool": string } {
  const what = kind.replace(/^agent-/, "");
  const order = op.tool === "shell" ? "one shell call" : op.cutFirst ? "cut first" : "paste first";
  const commit = op.commit === "none" ? "not committed" : op.commit === "together" ? "one commit" : "two commits";
  const sessions = op.sessions === "one" ? "" : op.sessions === "two" ? " · two sessions" : " · two sessions, first ended";
  return { refactor: `${what} · ${order} · ${commit}`, "refactor-tool": `${what} · ${op.tool}${sessions}` };
}

function expectText(actual: string, expected: string, what: string): void {
  if (actual === expected) return;
  let i = 0;
  while (i < actual.length && actual[i] === expected[i]) i++;
  throw new Error(
    `oracle harness: ${what} differs from the truth at offset ${i}: ${JSON.stringify(actual.slice(i, i + 40))} vs ${JSON.stringify(expected.slice(i, i + 40))}`,
  );
}

/** The confidence blame gave the line an outcome was judged by ("untraced" for an untraced answer). */
function confidenceLabel(seen: Seen): string {
  return seen.kind === "traced" ? (seen.confidence ?? "none") : seen.kind;
}
