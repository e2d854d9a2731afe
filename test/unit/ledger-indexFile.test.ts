import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { createHmac } from "node:crypto";
import { cacheKey, forgetCacheKey } from "../../server/src/io/cacheKey";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CACHE_DIR, workspaceCacheDir } from "../../server/src/io/cacheDir";
import { fileHash } from "../../server/src/engine/hashing";
import { CHECK_BYTES, decodeIndex, indexFileName, INDEX_FORMAT_VERSION, saveIndexInSteps } from "../../server/src/io/ledger/indexFile";
import { agentRecordLine } from "../support/recordLines";
import { WorkspaceLedger } from "../../server/src/io/ledger/workspaceLedger";
import type { FileIndex } from "../../server/src/engine/ledger/fileIndex";
import { PinIndex } from "../../server/src/engine/ledger/pinIndex";
import { postKey } from "../../server/src/engine/ledger/recordRows";

const LEDGER = ".orchestration/agent_trace.jsonl";

function record(i: number, opts: { path?: string; intent?: string | null; content?: string } = {}): string {
  return agentRecordLine(opts.path ?? `src/f${i % 5}.ts`, opts.content ?? `line ${i}\nsecond ${i}\n`, {
    ranges: [{ start_line: 1, end_line: 2 }],
    intentId: opts.intent === undefined ? `INT-00${1 + (i % 3)}` : opts.intent,
    now: new Date(Date.UTC(2026, 0, 1) + i * 60_000),
    id: `00000000-0000-4000-a000-${String(i).padStart(12, "0")}`,
  });
}

const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => `${record(from + k)}\n`).join("");

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "intent-lsp-indexfile-"));
  mkdirSync(join(root, ".orchestration"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A fresh process's view: a new WorkspaceLedger, saving after any new byte. */
async function open(opts: { cache?: boolean; saveAfterBytes?: number } = {}) {
  const ledger = new WorkspaceLedger(root, LEDGER, { saveAfterBytes: 1, ...opts });
  const poll = await ledger.poll();
  return { ledger, poll };
}

/** What a ledger answers for every file and intent: the same for a loaded index and one built from scratch. */
async function answers(ledger: WorkspaceLedger) {
  const index = ledger.sources[0]!.index;
  const files = index.files().sort();
  return {
    records: ledger.recordCount,
    unreadable: ledger.unreadable(),
    files: files.map((f) => [f, ledger.entriesFor(f), ledger.lastPostHash(f)]),
    intents: index
      .intents()
      .sort()
      .map((i) => [i, ledger.filesFor(i).sort(), ledger.editCount(i), ledger.lastChange(i)]),
  };
}

const indexFile = () => join(root, CACHE_DIR, indexFileName(LEDGER));

describe("the saved ledger index", () => {
  it("saved a few rows at a time, is the very file saved at once, and the file is replaced only at the end", async () => {
    writeFileSync(join(root, LEDGER), lines(0, 40));
    const { ledger } = await open();
    const whole = readFileSync(indexFile());
    const source = ledger.sources[0]!;
    // the ledger's first and last bytes indexed, as the source keeps them
    const text = readFileSync(join(root, LEDGER));
    const indexed = source.follower.offset;
    const head = text.subarray(0, Math.min(indexed, CHECK_BYTES));
    const tail = text.subarray(Math.max(0, indexed - CHECK_BYTES), indexed);
    const at = { ledger: LEDGER, indexed, nextLine: source.follower.nextLine, head, tail };
    rmSync(indexFile());
    const steps = saveIndexInSteps(root, () => source.index.state(), at, 1);
    let pauses = 0;
    for (let step = steps.next(); !step.done; step = steps.next()) {
      pauses++;
      expect(existsSync(indexFile())).toBe(false);
    }
    expect(pauses).toBe(5); // one a file
    expect(readFileSync(indexFile()).equals(whole)).toBe(true);
  });

  it("is written to .orchestration/.cache/, which ignores itself in git", async () => {
    writeFileSync(join(root, LEDGER), lines(0, 20));
    await open();
    expect(existsSync(indexFile())).toBe(true);
    expect(readFileSync(join(root, CACHE_DIR, ".gitignore"), "utf8")).toBe("*\n");
  });

  it("lets the next process read only what was appended since, with the same answers", async () => {
    writeFileSync(join(root, LEDGER), lines(0, 30));
    const first = await open();
    expect(first.poll).toMatchObject({ bytesResumed: 0, bytesRead: readFileSync(join(root, LEDGER)).length });

    const warm = await open();
    expect(warm.poll).toMatchObject({ bytesResumed: readFileSync(join(root, LEDGER)).length, bytesRead: 0 });
    expect(await answers(warm.ledger)).toEqual(await answers(first.ledger));

    const appended = `${lines(30, 33)}not json\n`;
    appendFileSync(join(root, LEDGER), appended);
    const after = await open();
    expect(after.poll.bytesRead).toBe(Buffer.byteLength(appended));
    expect(after.ledger.sources[0]!.index.unreadable.map((u) => u.line)).toEqual([34]);
    expect(await answers(after.ledger)).toEqual(await answers((await open({ cache: false })).ledger));
  });

  it("loads the saved index ahead of the first poll (a server answering initialize): the poll reads only what was appended since, and reports the loaded bytes as resumed", async () => {
    writeFileSync(join(root, LEDGER), lines(0, 30));
    const first = await open();
    const saved = readFileSync(join(root, LEDGER)).length;

    const early = new WorkspaceLedger(root, LEDGER, { saveAfterBytes: 1 });
    await early.loadSaved();
    expect(early.sources[0]!.index.recordCount).toBe(30);
    appendFileSync(join(root, LEDGER), lines(30, 32));
    const poll = await early.poll();
    expect(poll).toMatchObject({ bytesResumed: saved, bytesRead: readFileSync(join(root, LEDGER)).length - saved, changed: true });
    // what a poll does alone, from the same saved index
    const plain = new WorkspaceLedger(root, LEDGER, { saveAfterBytes: 1 });
    await plain.poll();
    expect(await answers(early)).toEqual(await answers(plain));
    expect(await answers(early)).not.toEqual(await answers(first.ledger));
    // the next poll reports nothing resumed
    expect(await early.poll()).toMatchObject({ bytesResumed: 0, bytesRead: 0, changed: false });
  });
  it("is rebuilt when the ledger is shorter than what was indexed", async () => {
    writeFileSync(join(root, LEDGER), lines(0, 20));
    await open();
    const keep = Buffer.byteLength(lines(0, 10));
    truncateSync(join(root, LEDGER), keep);
    const { ledger, poll } = await open();
    expect(poll).toMatchObject({ bytesResumed: 0, bytesRead: keep });
    expect(ledger.recordCount).toBe(10);
  });

  it("is rebuilt when the ledger's head changed, even at the same size", async () => {
    writeFileSync(join(root, LEDGER), lines(0, 20));
    await open();
    const text = readFileSync(join(root, LEDGER), "utf8");
    const firstLine = text.slice(0, text.indexOf("\n"));
    writeFileSync(join(root, LEDGER), firstLine.replaceAll("INT-001", "INT-009") + text.slice(firstLine.length));
    const { ledger, poll } = await open();
    expect(poll.bytesResumed).toBe(0);
    expect(ledger.filesFor("INT-009")).toEqual(["src/f0.ts"]);
  });

  it("is rebuilt when the bytes before the indexed end changed", async () => {
    writeFileSync(join(root, LEDGER), lines(0, 20));
    await open();
    const text = readFileSync(join(root, LEDGER), "utf8");
    const at = text.lastIndexOf("INT-00");
    writeFileSync(join(root, LEDGER), `${text.slice(0, at)}INT-777${text.slice(at + 7)}${record(20)}\n`);
    const { ledger, poll } = await open();
    expect(poll.bytesResumed).toBe(0);
    expect(ledger.editCount("INT-777")).toBe(1);
    expect(ledger.recordCount).toBe(21);
  });

  it("is rebuilt when its format version is not this one's", async () => {
    writeFileSync(join(root, LEDGER), lines(0, 20));
    await open();
    const bytes = readFileSync(indexFile());
    bytes.writeUInt32LE(INDEX_FORMAT_VERSION + 1, 8);
    writeFileSync(indexFile(), bytes);
    expect(decodeIndex(bytes)).toEqual({ problem: `format version ${INDEX_FORMAT_VERSION + 1}, not ${INDEX_FORMAT_VERSION}` });
    const { poll } = await open();
    expect(poll.bytesResumed).toBe(0);
    // and the rebuilt one replaced it
    expect((await open()).poll.bytesResumed).toBeGreaterThan(0);
  });

  it("is never trusted torn, corrupt or foreign: rebuilt from the ledger, with the same answers", async () => {
    writeFileSync(join(root, LEDGER), lines(0, 40));
    const truth = await answers((await open({ cache: false })).ledger);
    await open();
    const good = readFileSync(indexFile());
    const damaged: [string, Buffer][] = [
      ["torn", good.subarray(0, good.length - 7)],
      ["one byte flipped", Buffer.from(good.map((b, i) => (i === good.length - 3 ? b ^ 0xff : b)))],
      ["empty", Buffer.alloc(0)],
      ["not an index", Buffer.from("{}\n")],
      // inside the sections before the rows: a file's path, an intent's id in the header
      ["a path changed", Buffer.from(good.toString("latin1").replace("src/f1.ts", "src/g1.ts"), "latin1")],
      ["an intent changed", Buffer.from(good.toString("latin1").replace('"INT-002"', '"INT-009"'), "latin1")],
    ];
    for (const [what, bytes] of damaged) {
      writeFileSync(indexFile(), bytes);
      expect("problem" in decodeIndex(bytes), what).toBe(true);
      const { ledger, poll } = await open();
      expect(poll.bytesResumed, what).toBe(0);
      expect(await answers(ledger), what).toEqual(truth);
    }
  });

  it("keeps across a restart what the newest record says of a file (deleted) and of an intent with no readable time", async () => {
    const deleted = agentRecordLine("src/f1.ts", null as unknown as string, { ranges: [], intentId: "INT-002", id: "00000000-0000-4000-a000-000000000990" });
    const untimed = record(41, { intent: "INT-004" }).replace(/"timestamp":"[^"]+"/, '"timestamp":"not a time"');
    expect(untimed).toContain('"timestamp":"not a time"');
    writeFileSync(join(root, LEDGER), `${lines(0, 40)}${deleted}\n${untimed}\n`);
    const truth = await answers((await open({ cache: false })).ledger);
    expect((await open({ cache: false })).ledger.lastPostHash("src/f1.ts")).toBeNull();
    await open();
    const { ledger, poll } = await open();
    expect(poll.bytesResumed).toBeGreaterThan(0);
    expect(ledger.lastPostHash("src/f1.ts")).toBeNull();
    expect(await answers(ledger)).toEqual(truth);
    // another record of that intent with no readable time, read on from the saved index
    appendFileSync(join(root, LEDGER), `${record(42, { intent: "INT-004" }).replace(/"timestamp":"[^"]+"/, '"timestamp":"nor this"')}\n`);
    const again = await answers((await open({ cache: false })).ledger);
    const resumed = await open();
    expect(resumed.poll.bytesResumed).toBeGreaterThan(0);
    expect(await answers(resumed.ledger)).toEqual(again);
  });

  it("a process that saw its ledger replaced saves an index of the new one, which the next process resumes from", async () => {
    writeFileSync(join(root, LEDGER), lines(0, 30));
    const { ledger } = await open();
    writeFileSync(join(root, `${LEDGER}.new`), lines(100, 110));
    renameSync(join(root, `${LEDGER}.new`), join(root, LEDGER));
    expect((await ledger.poll()).reset).toBe(true);
    const truth = await answers((await open({ cache: false })).ledger);
    const next = await open();
    expect(next.poll.bytesResumed).toBe(readFileSync(join(root, LEDGER)).length);
    expect(await answers(next.ledger)).toEqual(truth);
  });

  it("a partly read index whose rows were damaged is read whole only checked: its pins come from the ledger", async () => {
    const copied = (i: number) => `${record(i, { path: `src/copy${i}.ts`, content: "line 7\nsecond 7\n" })}\n`;
    writeFileSync(join(root, LEDGER), lines(0, 40) + copied(40) + copied(41));
    const truth = (await open({ cache: false })).ledger.pathsPinning(fileHash("line 7\nsecond 7\n"));
    expect([...truth].sort()).toEqual(["src/copy40.ts", "src/copy41.ts", "src/f2.ts"]);
    await open();
    // every post key in the rows' last column damaged; the rest of the file as it was
    const bytes = readFileSync(indexFile());
    const n = bytes.readDoubleLE(16);
    for (let i = bytes.length - 4 * n; i < bytes.length; i++) bytes[i] ^= 0x5a;
    writeFileSync(indexFile(), bytes);
    const partial = new WorkspaceLedger(root, LEDGER, { partial: true });
    await partial.poll();
    expect([...partial.pathsPinning(fileHash("line 7\nsecond 7\n"))].sort()).toEqual([...truth].sort());
    // the damaged copy is gone: the next process reads the ledger whole, and saves a sound one
    expect(existsSync(indexFile())).toBe(false);
    expect((await open()).poll.bytesResumed).toBe(0);
    expect("problem" in decodeIndex(readFileSync(indexFile()))).toBe(false);
  });

  it("a partly read index cut short underneath its reader gives no answer from what is missing: it is dropped", async () => {
    writeFileSync(join(root, LEDGER), lines(0, 40));
    const truth = await answers((await open({ cache: false })).ledger);
    await open();
    const partial = new WorkspaceLedger(root, LEDGER, { partial: true });
    expect((await partial.poll()).bytesResumed).toBeGreaterThan(0);
    // the rows' columns cut away in place (the reader holds the file open)
    const n = readFileSync(indexFile()).readDoubleLE(16);
    truncateSync(indexFile(), readFileSync(indexFile()).length - 28 * n);
    expect(() => partial.entriesFor("src/f1.ts")).toThrow(
      "the saved ledger index could not be read back for src/f1.ts; it is dropped, and the ledger is read anew on the next run",
    );
    expect(existsSync(indexFile())).toBe(false);
    const next = await open();
    expect(next.poll.bytesResumed).toBe(0);
    expect(await answers(next.ledger)).toEqual(truth);
  });

  it("refuses an index made with another user's cache key (shipped in a repository, copied from another machine)", async () => {
    writeFileSync(join(root, LEDGER), lines(0, 10));
    await open();
    const bytes = readFileSync(indexFile());
    expect(decodeIndex(bytes)).not.toHaveProperty("problem");
    const saved = process.env["XDG_CACHE_HOME"];
    process.env["XDG_CACHE_HOME"] = join(root, "another-machine");
    forgetCacheKey();
    try {
      expect(decodeIndex(bytes)).toEqual({ problem: "corrupt: its checksum does not match" });
    } finally {
      if (saved === undefined) delete process.env["XDG_CACHE_HOME"];
      else process.env["XDG_CACHE_HOME"] = saved;
      forgetCacheKey();
    }
    expect(decodeIndex(bytes)).not.toHaveProperty("problem");
  });

  it("refuses an index whose file table does not add up to its rows, even with a valid checksum", async () => {
    writeFileSync(join(root, LEDGER), lines(0, 10));
    await open();
    const bytes = readFileSync(indexFile());
    const filesAt = 96 + Math.ceil(bytes.readUInt32LE(12) / 8) * 8;
    bytes.writeUInt32LE(bytes.readUInt32LE(filesAt) + 1, filesAt); // one more row for the first file
    const rowsAt = bytes.length - bytes.readDoubleLE(16) * 28;
    createHmac("sha256", cacheKey()).update(bytes.subarray(64, 96)).update(bytes.subarray(96, rowsAt)).digest().copy(bytes, 32);
    expect(decodeIndex(bytes)).toEqual({ problem: "corrupt: its file table does not match its rows" });
  });

  it("answers a query about one file from a partly read index as from a whole one", async () => {
    writeFileSync(join(root, LEDGER), `${lines(0, 60)}garbage\n`);
    await open();
    appendFileSync(join(root, LEDGER), lines(60, 63));
    const whole = await open();
    const partial = new WorkspaceLedger(root, LEDGER, { partial: true });
    expect((await partial.poll()).bytesResumed).toBeGreaterThan(0);
    for (const f of ["src/f0.ts", "src/f3.ts", "src/none.ts"]) {
      expect(partial.entriesFor(f)).toEqual(whole.ledger.entriesFor(f));
      expect(partial.hasPostHash(f, fileHash("line 60\nsecond 60\n"))).toBe(whole.ledger.hasPostHash(f, fileHash("line 60\nsecond 60\n")));
      expect(partial.lastPostHash(f)).toEqual(whole.ledger.lastPostHash(f));
    }
    expect(await answers(partial)).toEqual(await answers(whole.ledger));
  });

  it("finds the paths pinning some content from a loaded index as from one built from scratch", async () => {
    const copied = (i: number) => `${record(i, { path: `src/copy${i}.ts`, content: "line 7\nsecond 7\n" })}\n`;
    writeFileSync(join(root, LEDGER), lines(0, 40) + copied(40));
    await open();
    appendFileSync(join(root, LEDGER), copied(41));
    const whole = await open();
    expect(whole.poll.bytesResumed).toBeGreaterThan(0);
    const scratch = await open({ cache: false });
    const partial = new WorkspaceLedger(root, LEDGER, { partial: true });
    await partial.poll();
    for (const content of ["line 7\nsecond 7\n", "line 39\nsecond 39\n", "nobody\n"]) {
      const expected = [...scratch.ledger.pathsPinning(fileHash(content))].sort();
      expect([...whole.ledger.pathsPinning(fileHash(content))].sort()).toEqual(expected);
      expect([...partial.pathsPinning(fileHash(content))].sort()).toEqual(expected);
    }
    expect([...scratch.ledger.pathsPinning(fileHash("line 7\nsecond 7\n"))].sort()).toEqual(["src/copy40.ts", "src/copy41.ts", "src/f2.ts"]);
  });

  it("walks every row of a loaded index, files touched since it was saved included, in the order the files are listed", async () => {
    writeFileSync(join(root, LEDGER), lines(0, 30));
    await open();
    // rows added since the save: to a saved file (src/f1.ts) and to a file the saved index does not hold
    appendFileSync(join(root, LEDGER), `${record(31)}\n${record(32, { path: "src/new.ts" })}\n${record(36)}\n`);
    const { ledger } = await open({ saveAfterBytes: Number.MAX_SAFE_INTEGER });
    const files = (ledger.sources[0]!.index as unknown as { fileIndex: FileIndex }).fileIndex;
    files.readAll();
    const perFile: number[][] = [];
    for (const path of files.paths()) {
      const file = files.file(path);
      if (file) files.eachRow(file, (offset, time, length, line, post) => perFile.push([offset, time, length, line, post]));
    }
    const walked: number[][] = [];
    files.eachRowOfAll((offset, time, length, line, post) => walked.push([offset, time, length, line, post]));
    expect(walked).toEqual(perFile);
    expect(walked.length).toBe(33);
    expect(files.paths()).toContain("src/new.ts");
  });

  it("answers which records may pin a content by scanning the post column, exactly as the pin index does", async () => {
    // contents shared by many paths, rows in the saved index, rows added since to saved files and to new ones
    const rec = (i: number) => record(i, { path: i % 7 === 0 ? `src/copy${i % 3}.ts` : `src/f${i % 5}.ts`, content: `v${i % 4}\nx\n` });
    // a record whose two entries for one file pin different contents: its row's key is "mixed"
    const mixed = (i: number) => {
      const r = JSON.parse(record(i, { content: "v1\nx\n" }));
      r.files.push(r.files[0]);
      r.metadata["dev.intent-lsp"].other_files = [{ post_hash: fileHash("v2\nx\n") }];
      return JSON.stringify(r);
    };
    writeFileSync(join(root, LEDGER), [...Array.from({ length: 40 }, (_, i) => rec(i)), mixed(60)].map((l) => `${l}\n`).join(""));
    await open();
    appendFileSync(
      join(root, LEDGER),
      [...[40, 41, 42, 49, 56].map(rec), record(43, { path: "src/new.ts", content: "v1\nx\n" }), mixed(62)].map((l) => `${l}\n`).join(""),
    );
    const contents = ["v0\nx\n", "v1\nx\n", "v2\nx\n", "v3\nx\n", "nobody\n"];
    for (const opts of [{ saveAfterBytes: Number.MAX_SAFE_INTEGER }, { cache: false }]) {
      const { ledger } = await open(opts);
      const files = (ledger.sources[0]!.index as unknown as { fileIndex: FileIndex }).fileIndex;
      files.readAll();
      const pins = PinIndex.of(files);
      for (const content of contents) {
        const key = postKey(fileHash(content));
        expect(files.rowsPosting(key)).toEqual(pins.refs(key));
      }
      // ten saved records of v1, two added, one new file, two mixed; and the mixed ones for any content
      expect(files.rowsPosting(postKey(fileHash("v1\nx\n"))).length).toBe(15);
      expect(files.rowsPosting(postKey(fileHash("nobody\n"))).length).toBe(2);
      // the answer a process gets before and after it makes the pin index (after PIN_SCANS questions)
      const before = contents.map((c) => ledger.pathsPinning(fileHash(c)));
      for (let k = 0; k < 10; k++) ledger.pathsPinning(fileHash(`other ${k}`));
      expect(contents.map((c) => ledger.pathsPinning(fileHash(c)))).toEqual(before);
    }
  });

  it("survives concurrent writers: every index left is whole and describes the ledger", async () => {
    writeFileSync(join(root, LEDGER), lines(0, 50));
    // several processes' worth of ledgers, each appending and saving in turn, interleaved
    const writers = Array.from({ length: 6 }, () => new WorkspaceLedger(root, LEDGER, { saveAfterBytes: 1 }));
    await Promise.all(writers.map((w) => w.poll()));
    for (let round = 0; round < 3; round++) {
      appendFileSync(join(root, LEDGER), lines(50 + round * 2, 52 + round * 2));
      await Promise.all(writers.map((w) => w.poll()));
    }
    expect("problem" in decodeIndex(readFileSync(indexFile()))).toBe(false);
    expect(readdirSync(join(root, CACHE_DIR)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    const { ledger, poll } = await open();
    expect(poll.bytesResumed).toBe(readFileSync(join(root, LEDGER)).length);
    expect(await answers(ledger)).toEqual(await answers((await open({ cache: false })).ledger));
  });

  it("finds a recorded content hash by reading back only the records that may hold it", async () => {
    const many = Array.from({ length: 300 }, (_, i) => `${record(i, { path: "src/hot.ts", content: `v${i}\nx\n` })}\n`).join("");
    writeFileSync(join(root, LEDGER), many);
    await open();
    const { ledger } = await open();
    const index = ledger.sources[0]!.index;
    expect(ledger.hasPostHash("src/hot.ts", fileHash("v123\nx\n"))).toBe(true);
    expect(ledger.hasPostHash("src/hot.ts", fileHash("v999\nx\n"))).toBe(false);
    expect(ledger.hasPostHash("src/cold.ts", fileHash("v123\nx\n"))).toBe(false);
    expect(index.linesReparsed).toBeLessThanOrEqual(2);
    expect(ledger.lastPostHash("src/hot.ts")).toBe(fileHash("v299\nx\n"));
  });

  it("is never written outside the workspace through a symbolic link", async () => {
    const outside = mkdtempSync(join(tmpdir(), "intent-lsp-outside-"));
    try {
      symlinkSync(outside, join(root, CACHE_DIR));
      writeFileSync(join(root, LEDGER), lines(0, 20));
      expect(workspaceCacheDir(root, { create: true })).toBeUndefined();
      const { ledger } = await open();
      expect(ledger.recordCount).toBe(20);
      expect(readdirSync(outside)).toEqual([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("leaves no cache in a folder that is not an intent workspace", async () => {
    rmSync(join(root, ".orchestration"), { recursive: true });
    mkdirSync(join(root, "traces"));
    writeFileSync(join(root, "traces/t.jsonl"), lines(0, 5));
    const ledger = new WorkspaceLedger(root, "traces/t.jsonl", { saveAfterBytes: 1 });
    await ledger.poll();
    expect(ledger.recordCount).toBe(5);
    expect(existsSync(join(root, ".orchestration"))).toBe(false);
  });
});
