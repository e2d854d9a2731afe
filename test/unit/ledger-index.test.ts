import { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileHash } from "../../server/src/engine/hashing";
import { LedgerFollower } from "../../server/src/io/ledger/follow";
import { LedgerIndex } from "../../server/src/engine/ledger/ledgerIndex";
import { FileRecordLines } from "../../server/src/io/ledger/fileRecordLines";
import { buildRecord } from "../../server/src/engine/ledger/record";
import type { MutationClass } from "@shared/agentTrace";

const fixtures = join(__dirname, "../fixtures/agent-trace");
const samples = ["spec-examples.jsonl", "reference-impl-traces.jsonl", "older-dialect.jsonl", "flat-dialect.jsonl"]
  .map((n) => readFileSync(join(fixtures, n), "utf8"))
  .join("");

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "intent-lsp-index-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function ours(opts: { path: string; content: string | null; intent?: string; at: string; type?: "human" | "ai"; cls?: MutationClass }): string {
  const lines = opts.content === null ? 0 : opts.content.split("\n").length;
  return JSON.stringify(
    buildRecord({
      path: opts.path,
      content: opts.content,
      ranges: opts.content === null ? [] : [{ start_line: 1, end_line: lines }],
      contributor: { type: opts.type ?? "ai", ...(opts.type === "human" ? {} : { modelId: "anthropic/claude-sonnet-4-5" }) },
      sessionId: "idx",
      toolVersion: "0.1.0",
      mutationClass: opts.cls ?? "INTENT_EVOLUTION",
      preHash: null,
      scope: "PASS",
      intentId: opts.intent ?? null,
      now: new Date(opts.at),
    }),
  );
}

describe("LedgerIndex", () => {
  it("answers per-file and per-intent queries over the samples", () => {
    const index = new LedgerIndex();
    index.ingest(`${samples}garbage\n`, 1);
    expect(index.recordCount).toBe(8);
    expect(index.unreadable.map((u) => u.line)).toEqual([9]);
    expect(index.files().sort()).toEqual([
      "src/api/routes.ts",
      "src/api/weather.ts",
      "src/app.ts",
      "src/auth/middleware.ts",
      "src/auth/token.ts",
      "src/utils/helpers.ts",
      "src/utils/parser.ts",
    ]);
    expect(index.entriesFor("src/utils/parser.ts").map((e) => [e.line, e.dialect])).toEqual([
      [1, "spec"],
      [3, "reference"],
    ]);
    expect(index.entriesFor(".shell-history")).toEqual([]);
    expect(index.entriesFor("nope.ts")).toEqual([]);
    expect(index.filesFor("INT-001").sort()).toEqual(["src/api/routes.ts", "src/api/weather.ts"]);
    expect(index.editCount("INT-001")).toBe(2);
    expect(index.lastChange("INT-001")).toMatchObject({ path: "src/api/routes.ts", line: 6 });
    expect(index.filesFor("INT-002").sort()).toEqual(["src/auth/middleware.ts", "src/auth/token.ts"]);
    expect(index.lastChange("INT-002")!.path).toBe("src/auth/token.ts");
    expect(index.intents().sort()).toEqual(["INT-001", "INT-002"]);
    expect(index.lastPostHash("src/auth/middleware.ts")).toBe(fileHash("test"));
    expect(index.hasPostHash("src/auth/token.ts", fileHash("foo"))).toBe(true);
    expect(index.lastPostHash("src/app.ts")).toBeUndefined();
  });

  it("finds the paths pinning some content, for records ingested before and after the first lookup", () => {
    const index = new LedgerIndex();
    index.ingest(
      `${ours({ path: "a.ts", content: "shared", at: "2026-03-01T10:00:00Z" })}\n${ours({ path: "b.ts", content: "other", at: "2026-03-01T10:01:00Z" })}\n`,
      1,
    );
    expect(index.pathsPinning(fileHash("shared"))).toEqual(["a.ts"]);
    const before = index.linesReparsed;
    expect(index.pathsPinning(fileHash("nobody pins this"))).toEqual([]);
    expect(index.linesReparsed).toBe(before);
    index.ingest(
      `${ours({ path: "c.ts", content: "shared", at: "2026-03-01T11:00:00Z" })}\n${ours({ path: "a.ts", content: null, at: "2026-03-01T11:01:00Z" })}\n`,
      3,
    );
    expect(index.pathsPinning(fileHash("shared")).sort()).toEqual(["a.ts", "c.ts"]);
    index.reset();
    expect(index.pathsPinning(fileHash("shared"))).toEqual([]);
  });

  it("finds a path one act wrote second (a shell command's other file), by the post hash its details in other_files pin", () => {
    const first = JSON.parse(ours({ path: "a.ts", content: "first", at: "2026-03-01T10:00:00Z" }));
    const second = JSON.parse(ours({ path: "b.ts", content: "second", at: "2026-03-01T10:00:00Z" }));
    const { pre_hash, post_hash, line_count, carried } = second.metadata["dev.intent-lsp"];
    first.files.push(second.files[0]);
    first.metadata["dev.intent-lsp"].other_files = [{ pre_hash, post_hash, line_count, carried }];
    const index = new LedgerIndex();
    index.ingest(`${JSON.stringify(first)}\n`, 1);
    expect(index.pathsPinning(fileHash("second"))).toEqual(["b.ts"]);
    expect(index.pathsPinning(fileHash("first"))).toEqual(["a.ts"]);
    expect(index.hasPostHash("b.ts", fileHash("second"))).toBe(true);
  });

  it("tracks post hashes of our records: newest by timestamp wins, deletion is null", () => {
    const index = new LedgerIndex();
    const lines = [
      ours({ path: "a.ts", content: "v1", at: "2026-03-01T10:00:00Z", intent: "INT-003" }),
      ours({ path: "a.ts", content: "v3", at: "2026-03-01T12:00:00Z", intent: "INT-003" }),
      // merged from another branch: later in the file, older in time
      ours({ path: "a.ts", content: "v2", at: "2026-03-01T11:00:00Z", intent: "INT-004" }),
      ours({ path: "b.ts", content: "b", at: "2026-03-01T10:00:00Z" }),
      ours({ path: "b.ts", content: null, at: "2026-03-02T10:00:00Z", cls: "FILE_DELETION" }),
    ];
    index.ingest(`${lines.join("\n")}\n`, 1);
    expect(index.lastPostHash("a.ts")).toBe(fileHash("v3"));
    expect(index.hasPostHash("a.ts", fileHash("v1"))).toBe(true);
    expect(index.hasPostHash("a.ts", fileHash("v9"))).toBe(false);
    expect(index.lastPostHash("b.ts")).toBeNull();
    expect(index.entriesFor("b.ts").map((e) => [e.startLine, e.mutationClass])).toEqual([
      [1, "INTENT_EVOLUTION"],
      [0, "FILE_DELETION"],
    ]);
    expect(index.editCount("INT-003")).toBe(2);
    expect(index.lastChange("INT-003")!.line).toBe(2);
    expect(index.intentSummary("INT-004")).toMatchObject({ edits: 1, files: new Set(["a.ts"]) });
    expect(index.lineCount).toBe(5);
  });

  it("ingesting in chunks gives the same answers as one ingest", () => {
    const whole = new LedgerIndex();
    whole.ingest(samples, 1);
    const parts = new LedgerIndex();
    const lines = samples.split("\n");
    parts.ingest(`${lines.slice(0, 3).join("\n")}\n`, 1);
    parts.ingest(lines.slice(3).join("\n"), 4);
    for (const f of whole.files()) expect(parts.entriesFor(f)).toEqual(whole.entriesFor(f));
    expect(parts.recordCount).toBe(whole.recordCount);
  });

  it("counts a multi-file record as one edit", () => {
    const index = new LedgerIndex();
    const r = JSON.parse(ours({ path: "x.ts", content: "x", at: "2026-01-01T00:00:00Z", intent: "INT-009" }));
    r.files.push({ ...r.files[0], path: "y.ts" });
    index.ingest(JSON.stringify(r), 1);
    expect(index.editCount("INT-009")).toBe(1);
    expect(index.filesFor("INT-009").sort()).toEqual(["x.ts", "y.ts"]);
  });
});

describe("LedgerFollower", () => {
  const line = (i: number) => ours({ path: `f${i % 3}.ts`, content: `c${i}`, at: `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}Z`, intent: "INT-001" });

  it("reads only new bytes, waits for a partial line's newline, numbers lines across polls", async () => {
    const file = join(dir, "follow.jsonl");
    const index = new LedgerIndex();
    const follower = new LedgerFollower(file, index);
    expect(await follower.poll()).toEqual({ reset: false, missing: true, bytesRead: 0, lines: 0 });

    writeFileSync(file, `${line(1)}\n${line(2)}\n`);
    expect(await follower.poll()).toMatchObject({ reset: false, lines: 2 });
    expect(index.recordCount).toBe(2);

    const third = line(3);
    appendFileSync(file, third.slice(0, 50)); // a writer mid-append
    expect(await follower.poll()).toMatchObject({ lines: 0, bytesRead: 0 });
    appendFileSync(file, `${third.slice(50)}\nnot json\n`);
    expect(await follower.poll()).toMatchObject({ lines: 2 });
    expect(index.recordCount).toBe(3);
    expect(index.unreadable.map((u) => u.line)).toEqual([4]);
    expect(index.entriesFor("f0.ts").map((e) => e.line)).toEqual([3]);
    expect(follower.offset).toBe(readFileSync(file).length);
    expect(await follower.poll()).toMatchObject({ bytesRead: 0, lines: 0, reset: false });
  });

  it("re-reads from the start when the file is truncated, replaced or rewritten underneath", async () => {
    const file = join(dir, "replace.jsonl");
    const index = new LedgerIndex();
    const follower = new LedgerFollower(file, index);
    writeFileSync(file, `${[1, 2, 3].map(line).join("\n")}\n`);
    await follower.poll();
    expect(index.recordCount).toBe(3);

    truncateSync(file, 0);
    writeFileSync(file, `${line(4)}\n`);
    expect(await follower.poll()).toMatchObject({ reset: true, lines: 1 });
    expect(index.recordCount).toBe(1);

    // replaced by rename (git checkout): another inode
    const tmp = join(dir, "replace.tmp");
    writeFileSync(tmp, `${[5, 6].map(line).join("\n")}\n`);
    renameSync(tmp, file);
    expect(await follower.poll()).toMatchObject({ reset: true, lines: 2 });
    expect(index.recordCount).toBe(2);
    expect(index.entriesFor("f2.ts").map((e) => e.line)).toEqual([1]);

    // same inode, earlier bytes rewritten, file grew (a union merge that inserted lines)
    const merged = `${[5, 7, 6, 8].map(line).join("\n")}\n`;
    writeFileSync(file, merged);
    expect(await follower.poll()).toMatchObject({ reset: true, lines: 4 });
    expect(index.recordCount).toBe(4);

    rmSync(file);
    expect(await follower.poll()).toMatchObject({ reset: true, missing: true });
    expect(index.recordCount).toBe(0);
  });

  it("starts over after a record could not be read back, though the file then reads as appended (git writing it anew)", async () => {
    const file = join(dir, "rebase.jsonl");
    let follower: LedgerFollower | undefined;
    const index = new LedgerIndex(
      new FileRecordLines(
        file,
        () => follower?.fileIdentity,
        () => follower?.notAsIndexed(),
      ),
    );
    follower = new LedgerFollower(file, index);
    const main = `${[1, 2].map(line).join("\n")}\n`;
    writeFileSync(file, main);
    expect(await follower.poll()).toMatchObject({ reset: false, lines: 2 });

    // git rebase writes the ledger anew for the next commit: a new file that took the old one's inode, not yet
    // written, when a query reads a record back
    truncateSync(file, 0);
    expect(index.entriesFor("f1.ts")).toEqual([]);
    // then written: the same records first, one more after them
    writeFileSync(file, `${main}${line(4)}\n`);
    expect(await follower.poll()).toMatchObject({ reset: true, lines: 3 });
    expect(index.entriesFor("f1.ts").map((e) => e.line)).toEqual([1, 3]);
  });

  it("reads a large file in chunks, reporting progress and yielding to the event loop", async () => {
    const file = join(dir, "big.jsonl");
    const text = `${Array.from({ length: 3000 }, (_, i) => line(i)).join("\n")}\n`;
    writeFileSync(file, text);
    const index = new LedgerIndex();
    const follower = new LedgerFollower(file, index, { chunkBytes: 64 * 1024 });
    const progress: Array<[number, number]> = [];
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const result = await follower.poll((read, total) => progress.push([read, total]));
    clearInterval(timer);
    expect(result.lines).toBe(3000);
    expect(index.recordCount).toBe(3000);
    const total = Buffer.byteLength(text);
    expect(progress.length).toBeGreaterThan(10);
    expect(progress.every(([, t]) => t === total)).toBe(true);
    expect(progress[progress.length - 1]).toEqual([total, total]);
    expect(progress.map(([r]) => r)).toEqual([...progress.map(([r]) => r)].sort((a, b) => a - b));
    expect(ticks).toBeGreaterThan(0);
  });

  it("handles a line longer than a chunk", async () => {
    const file = join(dir, "longline.jsonl");
    const r = JSON.parse(line(1));
    r.metadata["dev.other"] = { blob: "y".repeat(5000) };
    writeFileSync(file, `${JSON.stringify(r)}\n${line(2)}\n`);
    const index = new LedgerIndex();
    await new LedgerFollower(file, index, { chunkBytes: 1024 }).poll();
    expect(index.recordCount).toBe(2);
    expect(index.unreadable).toEqual([]);
  });

  it("serializes concurrent polls", async () => {
    const file = join(dir, "concurrent-poll.jsonl");
    writeFileSync(file, `${[1, 2].map(line).join("\n")}\n`);
    const index = new LedgerIndex();
    const follower = new LedgerFollower(file, index);
    const results = await Promise.all([follower.poll(), follower.poll(), follower.poll()]);
    expect(results.map((r) => r.lines)).toEqual([2, 0, 0]);
    expect(index.recordCount).toBe(2);
  });
});

describe("memory (generated 100k-line ledger)", () => {
  // Speed is measured by `npm run bench`, against a baseline in the same run; this holds what the index keeps.
  it("indexes a 100,000-record ledger keeping a few dozen bytes per record, records read back on demand", async () => {
    const paths = Array.from({ length: 2000 }, (_, i) => `src/module${i % 40}/file${i}.ts`);
    const content = Array.from({ length: 40 }, (_, i) => `  const value${i} = compute(${i});`).join("\n");
    const template = JSON.parse(ours({ path: "x", content, at: "2026-01-01T00:00:00Z", intent: "INT-001" }));
    const lines: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      template.id = `550e8400-e29b-41d4-a716-${String(i).padStart(12, "0")}`;
      template.timestamp = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
      template.files[0].path = paths[i % paths.length];
      template.files[0].conversations[0].ranges[0].start_line = 1 + (i % 7);
      template.files[0].conversations[0].ranges[0].end_line = 40 + (i % 7);
      template.metadata["dev.intent-lsp"].intent_id = `INT-${String(1 + (i % 30)).padStart(3, "0")}`;
      template.metadata["dev.intent-lsp"].post_hash = `sha256:${i.toString(16).padStart(64, "0")}`;
      lines.push(JSON.stringify(template));
    }
    const file = join(dir, "big-memory.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    lines.length = 0;

    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    // external memory (buffers, typed arrays) is released after the collection that frees its owner
    const used = async () => {
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((r) => setImmediate(r));
      }
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const before = await used();
    let follower: LedgerFollower | undefined;
    const index = new LedgerIndex(new FileRecordLines(file, () => follower?.fileIdentity));
    follower = new LedgerFollower(file, index);
    await follower.poll();
    const bytesPerRecord = ((await used()) - before) / 100_000;
    expect(index.recordCount).toBe(100_000);
    expect(index.files()).toHaveLength(2000);
    expect(index.editCount("INT-001")).toBe(3334);
    expect(bytesPerRecord).toBeGreaterThan(0);
    expect(bytesPerRecord).toBeLessThan(100);
    // a file's records come back whole, through the reader, in ledger order
    const entries = index.entriesFor(paths[7]!);
    expect(entries.map((e) => e.line)).toEqual(Array.from({ length: 50 }, (_, k) => 8 + k * 2000));
    expect(entries[0]!.postHash).toBe(`sha256:${(7).toString(16).padStart(64, "0")}`);
    expect(index.hasPostHash(paths[7]!, `sha256:${(2007).toString(16).padStart(64, "0")}`)).toBe(true);
  }, 60_000);
});
