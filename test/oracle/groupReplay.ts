import { rmSync } from "node:fs";
import { basename } from "node:path";
import { seenLabel, type Seen } from "./answers";
import { checkClaims, compareLines } from "./compare";
import { splitRaw } from "./editorDriver";
import { groupHistory, ShadowTree, type GroupCommit } from "./gitHistory";
import { AI_MODELS, countReadings, hashString, textLines, type ReplayConfig } from "./historyReplay";
import { Prng } from "./prng";
import { Report, type Surface } from "./report";
import { HUMAN, World, type Contributor } from "./setup";
import { ownerLabel, type Via } from "./truth";

/**
 * The real-history replay of several files together (`--together`): the commits that changed any of them,
 * oldest first, each applied to one workspace as the change of one contributor to every file it changed.
 * A commit that splits a file (lines cut from one, a new file made of them) is replayed as its contributor
 * made it: a person cuts and pastes in the editor and saves both files, in either order; an agent writes
 * both files through its hook. The truth is `git blame -w -C -C` of a shadow repository holding exactly the
 * replayed states: moved and copied lines keep the step that wrote them, as `git blame -C` credits them.
 */
export interface GroupConfig extends ReplayConfig {
  rev: string;
  /** A commit that adds a file and changes another of the group (a split) is replayed as an agent's. */
  splitByAgent?: boolean;
  /** The order of a split's writes: the new files first, the changed ones first, or drawn. */
  splitOrder?: "paste-first" | "cut-first" | "random";
}

export async function replayGroup(cfg: GroupConfig): Promise<Report> {
  const history = groupHistory(cfg.repo, cfg.files, cfg.rev, cfg.maxCommits);
  const world = await World.create();
  const shadow = new ShadowTree();
  try {
    return await new GroupReplay(cfg, world, shadow).run(history);
  } finally {
    shadow.dispose();
    await world.dispose();
  }
}

const prefix = (path: string) => `src/replay/${path}`;

class GroupReplay {
  private readonly report = new Report();
  private readonly rng: Prng;
  private readonly owners: Contributor[] = [];
  private readonly vias: Via[] = [];
  private readonly authors = new Map<string, Contributor>();
  private readonly state = new Map<string, string>();
  private aiTurn = 0;

  constructor(
    private readonly cfg: GroupConfig,
    private readonly world: World,
    private readonly shadow: ShadowTree,
  ) {
    this.rng = new Prng(cfg.seed ^ hashString(cfg.files.join("\n")));
  }

  async run(history: { start: Map<string, string>; startAuthor: string; commits: GroupCommit[] }): Promise<Report> {
    const started = Date.now();
    const steps: GroupCommit[] = [{ commit: "start", author: history.startAuthor, changes: new Map(history.start) }, ...history.commits];
    for (let k = 0; k < steps.length; k++) {
      const c = steps[k]!;
      const split = k > 0 && this.isSplit(c.changes);
      const who = split && this.cfg.splitByAgent ? this.splitter() : this.contributorFor(c.author, k);
      this.shadow.commit(k, new Map([...c.changes].map(([p, t]) => [prefix(p), t])));
      const via = await this.apply(who, c.changes, split ? this.cfg.splitOrder : undefined);
      if (split) this.report.notes.push(`${c.commit.slice(0, 8)} splits ${[...c.changes.keys()].join(", ")}: replayed as ${who.actor.name}'s`);
      this.owners.push(who);
      this.vias.push(via);
      this.checkRecords(k, who, c.changes);
      if (k % this.cfg.checkpointEvery === 0 || k === steps.length - 1) await this.checkpoint(k);
      this.cfg.trace?.(`${k}: ${c.commit.slice(0, 8)} ${c.author} as ${who.actor.name} via ${via}: ${[...c.changes.keys()].join(", ")}`);
      if (k % 25 === 24) this.cfg.log?.(`${k + 1}/${steps.length} commits, ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    const made = history.commits.flatMap((c) =>
      [...c.changes].filter(([p, t]) => t !== null && !history.start.has(p)).map(([p]) => `${p} at ${c.commit.slice(0, 8)}`),
    );
    this.report.notes.push(
      `${this.cfg.files.join(" + ")}: ${history.commits.length} commits replayed together in ${((Date.now() - started) / 1000).toFixed(1)} s; ${this.authors.size} authors${made.length ? `; made during the replay: ${made.join(", ")}` : ""}`,
    );
    return this.report;
  }

  private contributorFor(author: string, k: number): Contributor {
    const nextAi = () => AI_MODELS[this.aiTurn++ % AI_MODELS.length]!;
    if (this.cfg.map === "commit") return k % 2 === 0 ? HUMAN : nextAi();
    let c = this.authors.get(author);
    if (!c) {
      c = this.authors.size % 2 === 0 ? HUMAN : nextAi();
      this.authors.set(author, c);
    }
    return c;
  }

  /** A commit that adds a file of the group and changes or deletes another: lines split off, or extracted. */
  private isSplit(changes: ReadonlyMap<string, string | null>): boolean {
    const paths = [...changes.keys()];
    return paths.some((p) => !this.state.has(p) && changes.get(p) !== null) && paths.some((p) => this.state.has(p));
  }

  /** The agent that makes a split (`--split-by agent`): the AI models in turn. */
  private splitter(): Contributor {
    return AI_MODELS[this.aiTurn++ % AI_MODELS.length]!;
  }

  /**
   * Every file the commit changed, in a random order (the cut or the paste first), by one contributor; a
   * split's in `splitOrder` when given: the new files first (`paste-first`) or the files it cut from first.
   */
  private async apply(who: Contributor, changes: ReadonlyMap<string, string | null>, splitOrder?: GroupConfig["splitOrder"]): Promise<Via> {
    const { editor, ws } = this.world;
    const order = [...changes.keys()].sort();
    for (let i = order.length - 1; i > 0; i--) {
      const j = this.rng.int(0, i);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    if (splitOrder === "paste-first" || splitOrder === "cut-first") {
      const made = (p: string) => (this.state.has(p) ? 1 : 0);
      order.sort((a, b) => (splitOrder === "paste-first" ? made(a) - made(b) : made(b) - made(a)));
    }
    let via: Via = who.actor.door === "editor" ? "editor" : "agent-closed";
    for (const p of order) {
      const path = prefix(p);
      const after = changes.get(p)!;
      const before = this.state.get(p);
      if (after === null) {
        if (editor.isOpen(path)) await editor.close(path);
        rmSync(ws.path(path), { force: true });
        this.state.delete(p);
        continue;
      }
      via = who.actor.door === "editor" ? await this.typeAndSave(path, before, after) : await this.agentWrite(who, path, before, after);
      this.state.set(p, after);
    }
    await editor.barrier();
    return via;
  }

  private async typeAndSave(path: string, before: string | undefined, after: string): Promise<Via> {
    const { editor, ws } = this.world;
    if (before === undefined) ws.write(path, "");
    if (!editor.isOpen(path)) await editor.open(path);
    const next = splitRaw(after);
    const splices =
      before === undefined
        ? [{ at: 0, remove: 0, insert: next }]
        : this.shadow.lastHunks(path).map((h) => ({ at: h.at, remove: h.remove, insert: next.slice(h.from, h.from + h.count) }));
    await editor.edit(path, splices, { oneNotification: false, fine: false });
    if (editor.text(path) !== after) throw new Error(`oracle harness: applying git's hunks to ${path} did not give its content`);
    await editor.save(path);
    return "editor";
  }

  private async agentWrite(who: Contributor, path: string, before: string | undefined, after: string): Promise<Via> {
    const { editor, agents } = this.world;
    const closed = this.rng.chance(1 / 3);
    if (closed && editor.isOpen(path)) await editor.close(path);
    if (!closed && !editor.isOpen(path) && before !== undefined) await editor.open(path);
    const open = editor.isOpen(path);
    const style = this.cfg.reload === "mixed" ? (this.rng.chance(0.5) ? "region" : "hunks") : this.cfg.reload;
    const reloadBeforeRecord = this.rng.chance(0.5);
    await agents.write(who.agent!, path, before ?? "", after, {
      preferEdit: false,
      created: before === undefined,
      ...(open && reloadBeforeRecord ? { afterWrite: () => editor.reload(path, style) } : {}),
    });
    if (open && !reloadBeforeRecord) await editor.reload(path, style);
    return open ? (style === "region" ? "agent-open-region" : "agent-open-hunks") : "agent-closed";
  }

  /** Records of this commit claim only lines git says it wrote (moved lines are not its own). */
  private checkRecords(k: number, who: Contributor, changes: ReadonlyMap<string, string | null>): void {
    const records = this.world.ledger.readNew();
    for (const [p, text] of changes) {
      if (text === null) continue;
      const path = prefix(p);
      const texts = textLines(text);
      const changed = new Set(this.shadow.blame(path, false).flatMap((s, i) => (s === k ? [i + 1] : [])));
      const rows = { via: this.vias[k]!, file: basename(p) };
      for (const [i, r] of records.entries()) {
        if (!r.claims.some((c) => c.path === path)) continue;
        // a paste recorded before its cut: the cut's record gives the block back (seededRun.checkRecords)
        const givenBack = new Set(records.slice(i + 1).flatMap((later) => later.movedIn.filter((m) => m.path === path).flatMap((m) => m.lines)));
        const check = checkClaims(r, path, texts, changed, who.actor.owner, "text", givenBack);
        this.report.countClaims(rows, check);
        this.report.overClaimedInCommit(check, {
          run: basename(p),
          step: k,
          path: path,
          seen: `${who.actor.name} record ${r.id.slice(0, 8)}`,
          via: rows.via,
          texts,
        });
      }
    }
  }

  private async checkpoint(k: number): Promise<void> {
    for (const [p, text] of [...this.state].sort(([a], [b]) => a.localeCompare(b))) {
      const path = prefix(p);
      const { steps, alternatives } = this.shadow.blameWithCopies(path, true);
      const texts = textLines(text);
      if (!texts.length) continue;
      if (steps.length !== texts.length) {
        this.report.notes.push(`${p} commit ${k}: not compared (git counts ${steps.length} lines, intent-lsp ${texts.length}: lone CR line endings)`);
        continue;
      }
      const hover = this.world.editor.isOpen(path) ? await this.world.editor.hoverAll(path) : undefined;
      const blamed = await this.world.blame(path);
      if (hover) this.count("hover", k, p, steps, alternatives, texts, hover);
      this.count("blame", k, p, steps, alternatives, texts, blamed);
      if (hover) {
        this.report.bothAsked += texts.length;
        hover.forEach((h, i) => {
          if (seenLabel(h) !== seenLabel(blamed[i]!)) this.report.disagreements++;
        });
      }
    }
  }

  private count(
    surface: Surface,
    k: number,
    p: string,
    steps: readonly number[],
    alternatives: readonly (readonly number[])[],
    texts: readonly string[],
    seen: readonly Seen[],
  ): void {
    // a copy's writer, or a block's writer in the file git finds it moved from at a lower copy score: an
    // equally valid owner when that is what intent-lsp says (ShadowTree.blameWithCopies)
    countReadings(this.report, this.cfg, surface, { checkpoint: k, path: prefix(p) }, this.owners, steps, alternatives, texts, seen);
    const truth = steps.map((s, i) => ({ text: texts[i]!, owner: this.owners[s]!.actor.owner, contentOnly: true }));
    compareLines(truth, seen).forEach(({ outcome, seen: judged }, i) => {
      const via = this.vias[steps[i]!]!;
      const age = steps[i] === 0 ? "from the first version" : steps[i]! > k - this.cfg.checkpointEvery ? "written since the last checkpoint" : "older";
      this.report.countLine(surface, outcome, {
        via,
        file: basename(p),
        age,
        ...(surface === "blame" ? { confidence: judged.kind === "traced" ? (judged.confidence ?? "none") : judged.kind } : {}),
      });
      // an `exact` answer that is not the truth, line by line: named, with whether its text repeats in the file
      // (then another of the identical lines may be the one the truth means: an equally valid reading)
      if (surface === "blame" && outcome !== "correct" && judged.kind === "traced" && judged.confidence === "exact") {
        const copies = texts.filter((t) => t === texts[i]).length;
        this.report.notes.push(
          `exact but not the truth line by line: ${basename(p)}:${i + 1} at ${k} (${copies > 1 ? `text repeated ${copies}×` : "text unique"}) \`${texts[i]!.slice(0, 60)}\``,
        );
      }
      if (outcome !== "correct") {
        this.report.example({
          run: basename(p),
          step: k,
          path: prefix(p),
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
