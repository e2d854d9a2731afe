import { spawnSync } from "node:child_process";
import { appendFileSync, rmSync } from "node:fs";
import { basename } from "node:path";
import { seenLabel, type Seen } from "./answers";
import { splitRaw } from "./editorDriver";
import { checkClaims, compareLines } from "./compare";
import { fileVersions, ShadowRepo, type FileVersion } from "./gitHistory";
import { Prng } from "./prng";
import { Report, type Surface } from "./report";
import { GPT, HUMAN, OPUS, SONNET, World, type Contributor } from "./setup";
import { normalizedText, ownerLabel, type Via } from "./truth";

/**
 * The real-history replay: each version of a file from a git history, oldest first, applied to a workspace
 * as the change of one contributor (authors mapped alternately to a person and to AI models), and each
 * line's hover and `intent blame --json` compared with `git blame -w` of a shadow repository holding exactly
 * the versions replayed (whitespace-only changes keep a line's owner, as in the seeded oracle).
 *
 * A person's commit is typed in the editor, hunk by hunk, and saved. An AI model's commit is an agent's
 * Write recorded by the hook, with the file open in the editor (which then reloads it, in one region or
 * hunk by hunk) or closed.
 *
 * A commit that renamed the file (`git log --follow` names another path before it) is replayed as git
 * has it and as a teammate's pulled commit arrives: the file moved and edited in one commit of the
 * workspace's own repository, recorded by no door. The lines it changed are rightly "untraced"; every
 * other line keeps its owner only if intent-lsp follows git's rename (io/gitSources.ts).
 */

export interface ReplayConfig {
  repo: string;
  /** Paths at HEAD. */
  files: readonly string[];
  seed: number;
  /** The newest this many versions of each file (the one before them is its starting content). */
  maxCommits: number;
  /** Compare every this many commits, and after the last. */
  checkpointEvery: number;
  /** "author": distinct authors alternately a person and an AI model, by first appearance; "commit": each commit. */
  map: "author" | "commit";
  reload: "region" | "hunks" | "mixed";
  log?: (line: string) => void;
  trace?: (line: string) => void;
  /** Appends every line still wrong on the equally valid readings of `intent blame` to this file, as JSON lines. */
  wrongOut?: string;
}

/** One line the equally valid readings still count wrong, for `--wrong`. */
export interface WrongLine {
  checkpoint: number;
  path: string;
  line: number;
  outcome: string;
  unique: boolean;
  truthStep: number;
  truth: string;
  seen: string;
  text: string;
}

/**
 * Counts a checkpoint's lines on the "equally valid readings" table: each line's owner is its truth, or one
 * of its equally valid other owners (`alternatives`, as steps) when that is what intent-lsp says; lines of
 * equal text anywhere in the file compare as a multiset. A line still wrong goes to `--wrong` (blame only:
 * hover says the same, or is counted apart).
 */
export function countReadings(
  report: Report,
  cfg: ReplayConfig,
  surface: Surface,
  at: { checkpoint: number; path: string },
  owners: readonly Contributor[],
  steps: readonly number[],
  alternatives: readonly (readonly number[])[],
  texts: readonly string[],
  seen: readonly Seen[],
): void {
  const truth = steps.map((s, i) => ({ text: texts[i]!, owner: owners[s]!.actor.owner, contentOnly: true }));
  const occurrences = new Map<string, number>();
  for (const t of texts) occurrences.set(normalizedText(t), (occurrences.get(normalizedText(t)) ?? 0) + 1);
  const readings = truth.map((t, i) => {
    const alternative = alternatives[i]!.map((by) => owners[by]!.actor.owner).find((o) => ownerLabel(o) === seenLabel(seen[i]!));
    return alternative ? { ...t, owner: alternative } : t;
  });
  compareLines(readings, seen, "text").forEach(({ outcome, seen: judged }, i) => {
    const unique = occurrences.get(normalizedText(texts[i]!)) === 1;
    report.countReading(surface, outcome, unique);
    if (outcome === "correct" || !cfg.wrongOut || surface !== "blame") return;
    const w: WrongLine = {
      ...at,
      line: i + 1,
      outcome,
      unique,
      truthStep: steps[i]!,
      truth: ownerLabel(truth[i]!.owner),
      seen: seenLabel(judged),
      text: texts[i]!,
    };
    appendFileSync(cfg.wrongOut, `${JSON.stringify(w)}\n`);
  });
}

export const AI_MODELS: readonly Contributor[] = [SONNET, OPUS, GPT];
/** Whoever made a commit that no door recorded. */
const TEAMMATE: Contributor = { actor: { name: "teammate", door: "editor", owner: { type: "human", intentId: "", unrecorded: true } } };

export async function replayHistory(cfg: ReplayConfig): Promise<Report> {
  const report = new Report();
  for (const file of cfg.files) {
    const versions = fileVersions(cfg.repo, file).slice(-(cfg.maxCommits + 1));
    const world = await World.create();
    const shadow = new ShadowRepo(`src/replay/${basename(file)}`);
    try {
      report.merge(await new FileReplay(cfg, world, shadow, file, versions).run());
    } finally {
      shadow.dispose();
      await world.dispose();
    }
  }
  return report;
}

class FileReplay {
  private readonly report = new Report();
  private readonly rng: Prng;
  private path: string;
  /** The workspace has a git repository (made at the first version when the history renames the file). */
  private readonly renames: boolean;
  private readonly owners: Contributor[] = [];
  private readonly vias: Via[] = [];
  private readonly authors = new Map<string, Contributor>();
  private aiTurn = 0;

  constructor(
    private readonly cfg: ReplayConfig,
    private readonly world: World,
    private readonly shadow: ShadowRepo,
    private readonly file: string,
    private readonly versions: readonly FileVersion[],
  ) {
    this.rng = new Prng(cfg.seed ^ hashString(file));
    this.renames = new Set(versions.map((v) => v.path)).size > 1;
    this.path = this.pathOf(versions[0]);
  }

  /** Where a version lives in the workspace: its path at that commit when the history renames the file. */
  private pathOf(v: FileVersion | undefined): string {
    return this.renames && v ? `src/replay/${v.path}` : `src/replay/${basename(this.file)}`;
  }

  private git(...args: string[]): void {
    const r = spawnSync("git", ["-c", "user.name=teammate", "-c", "user.email=teammate@example.com", "-c", "commit.gpgsign=false", ...args], {
      cwd: this.world.ws.root,
      encoding: "utf8",
    });
    if (r.status !== 0) throw new Error(`oracle: git ${args.join(" ")} failed: ${r.stderr}`);
  }

  /** The renaming commit, as git has it: moved and edited in one commit no door records. */
  private async renameCommit(from: string, text: string): Promise<Via> {
    const { editor, ws } = this.world;
    if (editor.isOpen(from)) await editor.close(from);
    this.git("add", "-A");
    this.git("commit", "-q", "--allow-empty", "-m", "before the rename");
    ws.write(this.path, text);
    rmSync(ws.path(from));
    this.git("add", "-A");
    this.git("commit", "-q", "-m", `rename ${from} to ${this.path}`);
    return "git-rename";
  }

  async run(): Promise<Report> {
    const started = Date.now();
    let previous = "";
    for (let k = 0; k < this.versions.length; k++) {
      const v = this.versions[k]!;
      const from = this.path;
      this.path = this.pathOf(v);
      const renamed = k > 0 && from !== this.path;
      const who = renamed ? TEAMMATE : this.contributorFor(v, k);
      this.shadow.commit(k, v.text);
      if (k === 0 && this.renames) this.git("init", "-q");
      const via = renamed ? await this.renameCommit(from, v.text) : await this.apply(k, who, previous, v.text);
      this.owners.push(who);
      this.vias.push(via);
      this.checkRecords(k, who, v.text);
      if (k % this.cfg.checkpointEvery === 0 || k === this.versions.length - 1) await this.checkpoint(k, v.text);
      this.cfg.trace?.(`${this.file} ${k}: ${v.commit.slice(0, 8)} ${v.author} as ${who.actor.name} via ${via}`);
      if (k % 25 === 24) this.cfg.log?.(`${this.file}: ${k + 1}/${this.versions.length} commits, ${((Date.now() - started) / 1000).toFixed(0)} s`);
      previous = v.text;
    }
    const lines = this.versions.length ? this.versions[this.versions.length - 1]!.text.split("\n").length : 0;
    this.report.notes.push(
      `${this.file}: ${this.versions.length} versions (${this.versions.length - 1} commits after the first) replayed in ${((Date.now() - started) / 1000).toFixed(1)} s; ${lines} lines at the end${this.cfg.map === "author" ? `; ${this.authors.size} authors` : ""}`,
    );
    return this.report;
  }

  private contributorFor(v: FileVersion, k: number): Contributor {
    const nextAi = () => AI_MODELS[this.aiTurn++ % AI_MODELS.length]!;
    if (this.cfg.map === "commit") return k % 2 === 0 ? HUMAN : nextAi();
    let c = this.authors.get(v.author);
    if (!c) {
      c = this.authors.size % 2 === 0 ? HUMAN : nextAi();
      this.authors.set(v.author, c);
    }
    return c;
  }

  private async apply(k: number, who: Contributor, before: string, after: string): Promise<Via> {
    const { editor, agents, ws } = this.world;
    if (who.actor.door === "editor") {
      if (k === 0) ws.write(this.path, "");
      if (!editor.isOpen(this.path)) await editor.open(this.path);
      // typed as git's own diff has it, so that what the editor changed is what git blame says changed
      const next = splitRaw(after);
      const splices =
        k === 0
          ? [{ at: 0, remove: 0, insert: next }]
          : this.shadow.lastHunks().map((h) => ({ at: h.at, remove: h.remove, insert: next.slice(h.from, h.from + h.count) }));
      await editor.edit(this.path, splices, { oneNotification: false, fine: false });
      if (editor.text(this.path) !== after) throw new Error(`oracle harness: applying git's hunks to ${this.file} at commit ${k} did not give its content`);
      await editor.save(this.path);
      return "editor";
    }
    const closed = this.rng.chance(1 / 3);
    if (closed && editor.isOpen(this.path)) await editor.close(this.path);
    if (!closed && !editor.isOpen(this.path) && k > 0) await editor.open(this.path);
    const open = editor.isOpen(this.path);
    const style = this.cfg.reload === "mixed" ? (this.rng.chance(0.5) ? "region" : "hunks") : this.cfg.reload;
    const reloadBeforeRecord = this.rng.chance(0.5);
    await agents.write(who.agent!, this.path, before, after, {
      preferEdit: false,
      created: k === 0,
      ...(open && reloadBeforeRecord ? { afterWrite: () => editor.reload(this.path, style) } : {}),
    });
    if (open && !reloadBeforeRecord) await editor.reload(this.path, style);
    await editor.barrier();
    return open ? (style === "region" ? "agent-open-region" : "agent-open-hunks") : "agent-closed";
  }

  /** Records of this commit claim only lines git says it changed (among lines of equal text, counts only). */
  private checkRecords(k: number, who: Contributor, text: string): void {
    const texts = textLines(text);
    const touched = this.shadow.blame(false);
    const changed = new Set(touched.flatMap((s, i) => (s === k ? [i + 1] : [])));
    const rows = { via: this.vias[k]!, file: basename(this.file) };
    for (const r of this.world.ledger.readNew()) {
      const check = checkClaims(r, this.path, texts, changed, who.actor.owner, "text");
      this.report.countClaims(rows, check);
      this.report.overClaimedInCommit(check, {
        run: basename(this.file),
        step: k,
        path: this.path,
        seen: `${who.actor.name} record ${r.id.slice(0, 8)}`,
        via: rows.via,
        texts,
      });
    }
  }

  private async checkpoint(k: number, text: string): Promise<void> {
    const steps = this.shadow.blame(true);
    // the step git credits when whitespace counts: an equally valid owner (ShadowTree.blameWithCopies)
    const exact = this.shadow.blame(false);
    const texts = textLines(text);
    if (!texts.length) return;
    if (steps.length !== texts.length) {
      // a lone CR ends a line for LSP and intent-lsp, not for git: such a version cannot be compared
      this.report.notes.push(`${this.file} commit ${k}: not compared (git counts ${steps.length} lines, intent-lsp ${texts.length}: lone CR line endings)`);
      return;
    }
    const hover = this.world.editor.isOpen(this.path) ? await this.world.editor.hoverAll(this.path) : undefined;
    const blamed = await this.world.blame(this.path);
    if (hover) this.count("hover", k, steps, exact, texts, hover);
    this.count("blame", k, steps, exact, texts, blamed);
    if (hover) {
      this.report.bothAsked += texts.length;
      hover.forEach((h, i) => {
        if (seenLabel(h) !== seenLabel(blamed[i]!)) this.report.disagreements++;
      });
    }
  }

  private count(surface: Surface, k: number, steps: readonly number[], exact: readonly number[], texts: readonly string[], seen: readonly Seen[]): void {
    const alternatives = steps.map((s, i) => (exact[i] !== undefined && exact[i] !== s ? [exact[i]!] : []));
    countReadings(this.report, this.cfg, surface, { checkpoint: k, path: this.path }, this.owners, steps, alternatives, texts, seen);
    const truth = steps.map((s, i) => ({ text: texts[i]!, owner: this.owners[s]!.actor.owner, contentOnly: true }));
    compareLines(truth, seen).forEach(({ outcome, seen: judged }, i) => {
      const via = this.vias[steps[i]!]!;
      const age = steps[i] === 0 ? "from the first version" : steps[i]! > k - this.cfg.checkpointEvery ? "written since the last checkpoint" : "older";
      this.report.countLine(surface, outcome, {
        via,
        file: basename(this.file),
        age,
        ...(surface === "blame" ? { confidence: judged.kind === "traced" ? (judged.confidence ?? "none") : judged.kind } : {}),
      });
      if (outcome !== "correct") {
        this.report.example({
          run: basename(this.file),
          step: k,
          path: this.path,
          line: i + 1,
          surface,
          outcome,
          truth: ownerLabel(truth[i]!.owner),
          seen: seenLabel(judged),
          kind: `commit ${steps[i]}`,
          via,
          text: texts[i]!,
        });
      }
    });
  }
}

/** Lines as intent-lsp and git count them: a final line break ends the last line. */
export function textLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r\n|\n|\r/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

export function hashString(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}
