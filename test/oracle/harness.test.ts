/**
 * The oracle's own parts, checked without a server: an instrument that misreads would blame the server for
 * its own mistakes. Comparison, the record check, the fairness rule, the edits the editor sends, the Edit
 * payloads and the generator's truth.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TextDocument } from "vscode-languageserver-textdocument";
import { editFor } from "./agentDriver";
import { parseBlameRow, parseHover } from "./answers";
import { checkClaims, compareLines } from "./compare";
import { joinLines, reloadChanges, spliceBatches, splitRaw } from "./editorDriver";
import { diffReadsAsTruth } from "./fairness";
import { FILE_OP_KINDS } from "./fileOps";
import { BlobOwners, blobId, parseLinePorcelain } from "./gitReading";
import { EditStreamGenerator, type Actor } from "./generator";
import { Prng } from "./prng";
import { applySplices, fileText, sameButWhitespace, sameOwner, type Owner, type TruthLine } from "./truth";

const HUMAN: Owner = { type: "human", intentId: "INT-101" };
const SONNET: Owner = { type: "ai", modelId: "anthropic/claude-sonnet-4-5", intentId: "INT-102" };
const OPUS: Owner = { type: "ai", modelId: "anthropic/claude-opus-4-1", intentId: "INT-103" };
const traced = (o: Owner) => ({ kind: "traced" as const, type: o.type, ...(o.modelId ? { modelId: o.modelId } : {}), intentId: o.intentId });

let id = 1000;
const line = (text: string, owner: Owner, touch = 0, extra: Partial<TruthLine> = {}): TruthLine => ({
  id: id++,
  text,
  eol: "\n",
  owner,
  kind: "create",
  via: "editor",
  touch,
  ...extra,
});

describe("reading the server's answers", () => {
  it("parses the hover's markdown and blame rows", () => {
    expect(
      parseHover(
        "**INT-102 — Agent refactoring (IN_PROGRESS)**\n\nai · anthropic/claude-sonnet-4-5 · just now (2026-01-01T00:00:00Z)\n\ntrace `abc` · intent-lsp",
      ),
    ).toEqual({
      kind: "traced",
      type: "ai",
      modelId: "anthropic/claude-sonnet-4-5",
      intentId: "INT-102",
      traceId: "abc",
    });
    expect(parseHover("**INT-101 — Feature work (IN_PROGRESS)**\n\nhuman · 2 min ago (2026-01-01T00:00:00Z)\n\ntrace `d`")).toEqual({
      kind: "traced",
      type: "human",
      intentId: "INT-101",
      traceId: "d",
    });
    expect(parseHover("**Edited, not saved yet.** It will be recorded under INT-101 when you save.")).toEqual({ kind: "edited" });
    expect(parseHover("**Untraced:** no ledger record covers this line.")).toEqual({ kind: "untraced" });
    expect(parseHover("Indexing the ledger…").kind).toBe("other");
    expect(parseBlameRow({ line: 1, kind: "traced", intent: "INT-103", contributor: "ai", model: "anthropic/claude-opus-4-1", traceId: "x" })).toEqual({
      ...traced(OPUS),
      traceId: "x",
    });
  });
});

describe("comparing with the truth", () => {
  it("judges line by line: a human line shown as an AI's is a swap, another model is wrong", () => {
    const truth = [HUMAN, SONNET, SONNET, HUMAN].map((owner, i) => ({ text: `l${i}`, owner, contentOnly: false }));
    const seen = [traced(SONNET), traced(OPUS), traced(SONNET), { kind: "untraced" as const }];
    expect(compareLines(truth, seen).map((o) => o.outcome)).toEqual(["swap", "wrong", "correct", "untraced"]);
  });

  it("compares a run of identical lines as a multiset only when an agent's write touched it", () => {
    const run = (contentOnly: boolean) => [
      { text: "}", owner: HUMAN, contentOnly: false },
      { text: "}  ", owner: SONNET, contentOnly },
    ];
    const seen = [traced(SONNET), traced(HUMAN)];
    expect(compareLines(run(true), seen).map((o) => o.outcome)).toEqual(["correct", "correct"]);
    expect(compareLines(run(false), seen).map((o) => o.outcome)).toEqual(["swap", "swap"]);
  });

  it("for a replayed history, matches identical lines anywhere in the file as a multiset (equally valid readings of git's diff)", () => {
    const truth = [
      { text: " *", owner: HUMAN, contentOnly: true },
      { text: "const a = 1;", owner: SONNET, contentOnly: true },
      { text: " *", owner: SONNET, contentOnly: true },
    ];
    const seen = [traced(SONNET), traced(SONNET), traced(HUMAN)];
    expect(compareLines(truth, seen).map((o) => o.outcome)).toEqual(["swap", "correct", "swap"]);
    expect(compareLines(truth, seen, "text").map((o) => o.outcome)).toEqual(["correct", "correct", "correct"]);
    // a unique line is judged by itself whichever grouping
    expect(compareLines(truth, [traced(HUMAN), traced(HUMAN), traced(SONNET)], "text").map((o) => o.outcome)).toEqual(["correct", "swap", "correct"]);
  });

  it("flags records claiming lines their contributor did not change, counting only among identical lines", () => {
    const texts = ["a", "", "", "b", "c"];
    const record = (ranges: [number, number][], owner = SONNET) => ({
      id: "r",
      line: 1,
      claims: [{ path: "f", type: owner.type, modelId: owner.modelId!, intentId: owner.intentId, ranges }],
      movedIn: [],
    });
    // line 3 was the new blank line; claiming line 2 instead is the same count within the blank run
    expect(checkClaims(record([[2, 2]]), "f", texts, new Set([3]), SONNET, "runs")).toEqual({ overClaimed: [], wrongContributor: false });
    expect(checkClaims(record([[2, 4]]), "f", texts, new Set([3]), SONNET, "runs")).toEqual({ overClaimed: [2, 4], wrongContributor: false });
    expect(checkClaims(record([[5, 6]], HUMAN), "f", texts, new Set([5]), SONNET, "runs")).toEqual({ overClaimed: [6], wrongContributor: true });
    // a paste recorded before its cut: the cut's record gives lines 4-5 back, so they are withdrawn, not over-claimed
    expect(checkClaims(record([[1, 5]]), "f", texts, new Set([1]), SONNET, "runs", new Set([4, 5]))).toEqual({ overClaimed: [2, 3], wrongContributor: false });
  });
});

describe("fairness: agent changes a line diff reads as the truth has them", () => {
  const file = (...texts: string[]) => texts.map((t) => line(t, HUMAN));
  it("accepts a block with distinct edges, rejects one that can slide against its neighbour", () => {
    const before = file("a", "}", "b");
    const fresh = [line("x", SONNET, 1), line("}", SONNET, 1)];
    // inserted after "}" as [x, }]: a diff may equally say [}, x] was inserted before the old "}"
    expect(diffReadsAsTruth(before, applySplices(before, [{ at: 2, remove: 0, insert: fresh }]), 1)).toBe(false);
    expect(diffReadsAsTruth(before, applySplices(before, [{ at: 1, remove: 0, insert: [line("x", SONNET, 1), line("y", SONNET, 1)] }]), 1)).toBe(true);
  });

  it("rejects deleting one of two identical lines with different owners, accepts it when they share one", () => {
    const mixed = [line("a", HUMAN), line("}", HUMAN), line("}", SONNET), line("b", HUMAN)];
    expect(diffReadsAsTruth(mixed, applySplices(mixed, [{ at: 1, remove: 1, insert: [] }]), 1)).toBe(false);
    const same = [line("a", HUMAN), line("}", HUMAN), line("}", HUMAN), line("b", HUMAN)];
    expect(diffReadsAsTruth(same, applySplices(same, [{ at: 1, remove: 1, insert: [] }]), 1)).toBe(true);
  });
});

describe("what the drivers send", () => {
  const apply = (text: string, batches: ReturnType<typeof spliceBatches>) => {
    let doc = TextDocument.create("file:///f", "ts", 1, text);
    for (const changes of batches) doc = TextDocument.update(doc, changes, doc.version + 1);
    return doc.getText();
  };

  it("editor changes (whole lines, characters and line endings, bottom-up in one notification) give the truth's text", () => {
    const rng = new Prng(7);
    for (let round = 0; round < 200; round++) {
      const lines = Array.from({ length: rng.int(1, 12) }, (_, i) => ({
        text: rng.chance(0.2) ? "" : `  line ${i} = ${rng.int(0, 9)}`,
        eol: rng.chance(0.3) ? "\r\n" : "\n",
      }));
      const before = joinLines(lines);
      const at = rng.int(0, lines.length - 1);
      const old = lines[at]!;
      const fine = [
        { at, remove: 1, insert: [{ text: rng.chance(0.5) ? `\t${old.text.trim()}  ` : old.text.replace(/ = /, "="), eol: rng.chance(0.5) ? "\r\n" : "\n" }] },
      ];
      const block = [
        {
          at: rng.int(0, lines.length),
          remove: 0,
          insert: [
            { text: "x", eol: "\n" },
            { text: "", eol: "\r\n" },
          ],
        },
      ];
      for (const [splices, opts] of [
        [fine, { oneNotification: true, fine: true }],
        [[...fine, ...block], { oneNotification: true, fine: false }],
        [[...fine, ...block], { oneNotification: false, fine: true }],
      ] as const) {
        const copy = splitRaw(before);
        const batches = spliceBatches(copy, splices, opts);
        expect(apply(before, batches)).toBe(joinLines(copy));
      }
    }
  });

  it("reloads in one region or hunk by hunk give the new text", () => {
    const rng = new Prng(11);
    for (let round = 0; round < 200; round++) {
      const lines = Array.from({ length: rng.int(0, 15) }, () => `${rng.pick(["a", "b", "}", ""])}${rng.pick(["\n", "\r\n"])}`);
      const next = lines.filter(() => rng.chance(0.8)).flatMap((l) => (rng.chance(0.2) ? [l, "new\n"] : [l]));
      for (const style of ["region", "hunks"] as const) {
        expect(apply(lines.join(""), [reloadChanges(splitRaw(lines.join("")), splitRaw(next.join("")), style)])).toBe(next.join(""));
      }
    }
  });

  it("builds a Claude Code Edit whose old_string is unique, widened with context when needed", () => {
    expect(editFor("a\nb\nc\n", "a\nB\nc\n")).toEqual({ oldString: "b\n", newString: "B\n" });
    // an insertion has no old text: one line of context
    expect(editFor("a\nb\n", "a\nx\nb\n")).toEqual({ oldString: "a\n", newString: "a\nx\n" });
    // "}\n" occurs twice: widened until unique
    const edit = editFor("f {\n}\ng {\n}\n", "f {\n}\ng {\n  y\n}\n")!;
    expect("f {\n}\ng {\n}\n".split(edit.oldString).length).toBe(2);
    expect(editFor("a\n", "b\n")).toBeUndefined();
  });
});

describe("the generator's truth", () => {
  it("is reproducible from its seed and keeps its rules over a long stream", () => {
    const actors: { actor: Actor; weight: number }[] = [
      { actor: { name: "human", door: "editor", owner: HUMAN }, weight: 1 },
      { actor: { name: "sonnet", door: "hook", owner: SONNET }, weight: 1 },
    ];
    const stream = (seed: number) => {
      const gen = new EditStreamGenerator(new Prng(seed), { actors, pasteLines: [20, 60], maxLines: 300 });
      const open = new Set<string>();
      const steps = [gen.creation(0, "f.ts", 40, actors[0]!.actor)];
      gen.commit(steps[0]!);
      for (let i = 1; i < 300; i++) {
        const before = gen.files.get("f.ts")!;
        const step = gen.next(i, ["f.ts"], (p) => open.has(p));
        if (step.actor.door === "editor") open.add("f.ts");
        else if (step.via === "agent-closed") open.delete("f.ts");
        const preview = gen.preview(step);
        gen.commit(step);
        const after = gen.files.get("f.ts")!;
        expect(fileText(after)).toBe(fileText(preview));
        const kept = new Map(before.map((l) => [l.id, l]));
        for (const l of after) {
          if (kept.has(l.id)) expect(l).toBe(kept.get(l.id));
          else if (l.kind === "whitespace") {
            expect(sameButWhitespace(l.prev!.text, l.text)).toBe(true);
            expect(sameOwner(l.owner, kept.get(l.prev!.id)!.owner)).toBe(true);
          } else expect(l.owner).toBe(step.actor.owner);
        }
        if (step.actor.door === "hook") expect(diffReadsAsTruth(before, after, i)).toBe(true);
        steps.push(step);
      }
      return { text: fileText(gen.files.get("f.ts")!), kinds: new Set(steps.map((s) => s.kind)) };
    };
    const a = stream(5);
    expect(stream(5).text).toBe(a.text);
    expect(stream(6).text).not.toBe(a.text);
    expect([...a.kinds].sort()).toEqual([
      "block-move",
      "copy-block",
      "create",
      "delete",
      "dup-blank-brace",
      "insert-above",
      "interleaved",
      "large-paste",
      "modify",
      "revert",
      "type-undo",
      "whitespace",
    ]);
  });
});

describe("file-level steps' truth", () => {
  it("a rename, a block moved or copied into another file and a rebase keep every line's owner; a git rename's edit is the person's", () => {
    const person: Actor = { name: "human", door: "editor", owner: HUMAN };
    const agent: Actor = { name: "sonnet", door: "hook", owner: SONNET };
    const gen = new EditStreamGenerator(new Prng(11), { actors: [{ actor: agent, weight: 1 }], pasteLines: [20, 60], maxLines: 300 });
    for (const [path, count] of [
      ["src/a.ts", 40],
      ["src/b.ts", 30],
    ] as const)
      gen.commit(gen.creation(0, path, count, agent));
    const paths = ["src/a.ts", "src/b.ts"];
    const rng = new Prng(12);
    const owners = (p: string) => gen.files.get(p)!.map((l) => `${l.owner.type}:${l.text}`);
    const seen = new Set<string>();
    for (let index = 1; index < 40; index++) {
      const kind = FILE_OP_KINDS[index % FILE_OP_KINDS.length]!;
      const step = gen.fileOp(kind, index, person, paths, rng);
      if (!step) continue;
      seen.add(kind);
      const before = Object.fromEntries(paths.map((p) => [p, owners(p)]));
      const op = step.op!;
      const oldPaths = [...paths];
      gen.commit(step, paths);
      if (op.kind === "rename") {
        expect(paths).toContain(step.path);
        expect(paths).not.toContain(op.from);
        expect(gen.files.has(op.from)).toBe(false);
        const changed = new Set(step.splices.flatMap((s) => s.insert.map((l) => l.id)));
        gen.files.get(step.path)!.forEach((l, i) => {
          if (changed.has(l.id)) expect(l.owner).toBe(HUMAN);
          else expect(`${l.owner.type}:${l.text}`).toBe(before[op.from]![i]);
        });
      } else if (op.kind === "block") {
        const block = before[op.from]!.slice(op.start, op.start + op.length);
        const at = step.splices[0]!.at;
        expect(owners(step.path).slice(at, at + op.length)).toEqual(block);
        if (op.cut) expect(owners(op.from)).toEqual([...before[op.from]!.slice(0, op.start), ...before[op.from]!.slice(op.start + op.length)]);
      } else {
        expect(paths).toEqual(oldPaths);
        for (const p of paths) expect(owners(p)).toEqual(before[p]);
      }
    }
    expect([...seen].sort()).toEqual([...FILE_OP_KINDS].sort());
  });
});

describe("git's reading of moved lines", () => {
  it("follows a block git blame -C -C traces to the file it came from, to the owners that content had", () => {
    const dir = mkdtempSync(join(tmpdir(), "intent-lsp-test-gitreading-"));
    try {
      const git = (...args: string[]) =>
        execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd: dir, encoding: "utf8" });
      git("init", "-q");
      const a = [
        line("export function parseConfiguration(input: string): Configuration {", SONNET),
        line("  const entries = input.split(separatorForConfiguration);", SONNET),
        line("  return entries.map((entry) => normaliseConfigurationEntry(entry));", HUMAN),
        line("}", HUMAN),
        line("export const DEFAULT_CONFIGURATION_TIMEOUT_IN_MILLISECONDS = 3000;", OPUS),
      ];
      const owners = new BlobOwners();
      writeFileSync(join(dir, "a.ts"), fileText(a));
      git("add", "-A");
      git("commit", "-q", "-m", "a");
      expect(owners.remember(a)).toBe(git("hash-object", "a.ts").trim());
      // the function moved to b.ts in one commit: git names a.ts for its lines
      writeFileSync(join(dir, "a.ts"), fileText(a.slice(4)));
      writeFileSync(join(dir, "b.ts"), fileText(a.slice(0, 4)));
      git("add", "-A");
      git("commit", "-q", "-m", "split");
      const origins = parseLinePorcelain(git("blame", "-w", "-C", "-C", "--line-porcelain", "HEAD", "--", "b.ts"));
      expect(origins.map((o) => [o.line, o.path, o.origLine])).toEqual([
        [1, "a.ts", 1],
        [2, "a.ts", 2],
        [3, "a.ts", 3],
        [4, "a.ts", 4],
      ]);
      const blob = git("rev-parse", `${origins[0]!.commit}:a.ts`).trim();
      expect(origins.map((o) => owners.ownerAt(blob, o.origLine))).toEqual([SONNET, SONNET, HUMAN, HUMAN]);
      expect(owners.ownerAt(blobId("never held\n"), 1)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("does not take an owner from content the workspace held twice with different owners at that line", () => {
    const owners = new BlobOwners();
    const blob = owners.remember([line("const a = 1;", HUMAN), line("const b = 2;", HUMAN)]);
    // the same text later, its second line reverted by an agent: which moment git's commit is of is unknown
    expect(owners.remember([line("const a = 1;", HUMAN), line("const b = 2;", SONNET)])).toBe(blob);
    expect([owners.ownerAt(blob, 1), owners.ownerAt(blob, 2)]).toEqual([HUMAN, null]);
  });
});
