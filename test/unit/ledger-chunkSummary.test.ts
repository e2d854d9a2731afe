import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type ChunkSummary, summarizeChunk } from "../../server/src/engine/ledger/chunkSummary";
import { LedgerIndex } from "../../server/src/engine/ledger/ledgerIndex";
import { StringPool } from "../../server/src/engine/ledger/read";
import { type ChunkSummarizer, LedgerFollower } from "../../server/src/io/ledger/follow";
import { corpus, ours } from "../support/ledgerCorpus";
import { prng } from "../support/protocolFuzz";

/**
 * An index fed summaries made apart from it (engine/ledger/chunkSummary.ts, what the worker threads of
 * io/ledger/summaryWorkers.ts make) against the oracle: an index fed the same lines plainly. Ledgers are
 * drawn from every dialect's lines, broken lines and our records with shared, tied and missing times, cut
 * into chunks at random line ends; everything the index answers must be the same.
 */

const PATHS = ["src/a.ts", "src/b.ts", "docs/c.md", "../outside.ts", "src/a.ts"];
const TIMES = ["2026-02-03T04:05:06.789Z", "2026-02-03T04:05:06.789Z", "2026-01-01T00:00:00Z", "not a time", "2026-03-01T10:00:00.000Z"];

function randomLedger(rand: () => number, n: number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const shapes = corpus();
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const roll = rand();
    if (roll < 0.25) {
      lines.push(pick(shapes));
      continue;
    }
    const r = ours({ path: pick(PATHS), intent: pick([null, "INT-001", "INT-002", "INT-003"]), deleted: rand() < 0.05 });
    r.timestamp = pick(TIMES);
    r.id = `id-${i}`;
    const meta = r.metadata?.["dev.intent-lsp"];
    if (meta && !r.files[0].deleted) meta.post_hash = pick(["sha256:aaaa0001", "sha256:bbbb0002", null, `sha256:${i.toString(16).padStart(8, "0")}`]);
    if (roll > 0.9) r.files.push({ ...r.files[0], path: pick(PATHS) });
    lines.push(JSON.stringify(r));
  }
  // blank lines and a final line with or without its newline
  return lines.map((l) => (rand() < 0.05 ? `${l}\n` : l)).join("\n") + (rand() < 0.5 ? "\n" : "");
}

/** The ledger's bytes cut at random line ends into complete-line chunks, with their offsets and first line numbers. */
function chunksOf(bytes: Buffer, rand: () => number): { chunk: Buffer; offset: number; line: number }[] {
  const out: { chunk: Buffer; offset: number; line: number }[] = [];
  let start = 0;
  let line = 1;
  while (start < bytes.length) {
    let end = start;
    const take = 1 + Math.floor(rand() * 12);
    for (let k = 0; k < take && end < bytes.length; k++) {
      const nl = bytes.indexOf(0x0a, end);
      end = nl === -1 ? bytes.length : nl + 1;
    }
    const chunk = bytes.subarray(start, end);
    out.push({ chunk, offset: start, line });
    for (const b of chunk) if (b === 0x0a) line++;
    start = end;
  }
  return out;
}

/** Everything an index answers, as plain data. */
function answers(index: LedgerIndex): unknown {
  const state = index.state();
  const rows = state.files.map((f) => {
    const r: number[][] = [];
    state.eachRow!(f, (offset, time, length, line, post) => r.push([offset, time, length, line, post]));
    return { path: f.path, count: f.count, newestTime: f.newestTime, newestPost: f.newestPost, rows: r };
  });
  const files = index.files().sort();
  return {
    records: state.records,
    lastLine: state.lastLine,
    rows,
    intents: index
      .intents()
      .sort()
      .map((id) => ({ id, files: index.filesFor(id).sort(), edits: index.editCount(id), last: index.lastChange(id) })),
    unreadable: index.unreadable,
    entries: files.map((p) => [p, index.entriesFor(p), index.lastPostHash(p)]),
    pins: ["sha256:aaaa0001", "sha256:bbbb0002", "sha256:00000007"].map((h) => index.pathsPinning(h).sort()),
  };
}

describe("an index fed chunk summaries made apart from it", () => {
  it("answers exactly as an index that read the same lines itself, on 200 random ledgers and cuts", () => {
    let summarizedLines = 0;
    let ownLines = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const rand = prng(20261130 + seed);
      const bytes = Buffer.from(randomLedger(rand, 10 + Math.floor(rand() * 60)), "utf8");
      const plain = new LedgerIndex();
      const fed = new LedgerIndex();
      const before = summarizedLines;
      for (const { chunk, offset, line } of chunksOf(bytes, rand)) {
        plain.ingestBytes(chunk, offset, line);
        // each summary in a pool of its own, as a worker thread has
        const summary = summarizeChunk(Buffer.from(chunk), new StringPool());
        for (let i = 0; i < summary.lines.length; i += 2) summary.lines[i] === 1 ? summarizedLines++ : ownLines++;
        fed.ingestBytes(chunk, offset, line, summary);
      }
      expect(answers(fed), `seed ${seed}`).toEqual(answers(plain));
      // every line a summary read was taken from it, none parsed again
      expect(fed.linesSummarized, `seed ${seed}`).toBe(summarizedLines - before);
      expect(plain.linesSummarized).toBe(0);
    }
    // both kinds of line were met many times
    expect(summarizedLines).toBeGreaterThan(3000);
    expect(ownLines).toBeGreaterThan(1000);
  });

  it("summarizes our records itself and leaves every other shape to the index", () => {
    const lines = [JSON.stringify(ours()), "not json", "", JSON.stringify(ours({ path: "src/b.ts", intent: null }))];
    const s = summarizeChunk(Buffer.from(`${lines.join("\n")}\n`), new StringPool());
    expect([...s.lines]).toEqual([1, 1, 2, 0, 1, 1]);
    expect([...s.times]).toEqual([Date.parse("2026-02-03T04:05:06.789Z"), Date.parse("2026-02-03T04:05:06.789Z")]);
    const post = ours().metadata["dev.intent-lsp"].post_hash as string;
    // paths and intents are numbered once each, post hashes as they come
    expect(s.strings).toEqual(["src/a.ts", "INT-001", post, "src/b.ts", post]);
    expect([...s.entries]).toEqual([0, 1, 2, 3, -1, 4]);
  });

  it("reads the chunk itself when the summary is not of its bytes", () => {
    const a = Buffer.from(`${JSON.stringify(ours())}\n${JSON.stringify(ours({ path: "src/b.ts" }))}\n`);
    const b = Buffer.from(`${JSON.stringify(ours({ path: "src/c.ts" }))}\n`);
    // as long as `a` in one line; as many lines as `a`, of other lengths
    const oneLine = Buffer.from(`${JSON.stringify(ours({ path: "src/c.ts" }))}\n`.padStart(a.length, " "));
    const twoOther = Buffer.concat([b, Buffer.from(`${JSON.stringify(ours({ path: "src/longer/d.ts" }))}\n`)]);
    expect(oneLine.length).toBe(a.length);
    expect(twoOther.length).not.toBe(a.length);
    const wrong: ChunkSummary[] = [
      summarizeChunk(b, new StringPool()),
      summarizeChunk(oneLine, new StringPool()),
      summarizeChunk(twoOther, new StringPool()),
      { ...summarizeChunk(a, new StringPool()), times: new Float64Array(1) },
      { ...summarizeChunk(a, new StringPool()), entries: new Int32Array(3) },
      { ...summarizeChunk(a, new StringPool()), lines: new Int32Array([1, 1]) },
    ];
    for (const summary of wrong) {
      const fed = new LedgerIndex();
      fed.ingestBytes(a, 0, 1, summary);
      expect(fed.linesSummarized).toBe(0);
      expect(fed.files().sort()).toEqual(["src/a.ts", "src/b.ts"]);
      expect(fed.recordCount).toBe(2);
    }
  });
});

describe("a follower that has chunks summarized elsewhere", () => {
  const dir = mkdtempSync(join(tmpdir(), "intent-lsp-summaries-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  type Log = { asked: number[]; closed: number; failed: number; withdrawn: number; inFlight: number; most: number };

  /**
   * Summaries made in this thread by pretend workers: each chunk is taken after a random wait (until then the
   * reader may take it back), then answered after another, out of order, some never.
   */
  function scrambled(rand: () => number, log: Log): (bytes: number) => ChunkSummarizer {
    return (bytes) => {
      log.asked.push(bytes);
      return {
        ahead: 3,
        summarize: (chunk) => {
          let taken = false;
          let withdrawn = false;
          log.most = Math.max(log.most, ++log.inFlight);
          const summary = new Promise<ChunkSummary | undefined>((resolve) => {
            setTimeout(
              () => {
                if (withdrawn) return resolve(undefined);
                taken = true;
                setTimeout(
                  () => {
                    log.inFlight--;
                    const fail = rand() < 0.2;
                    if (fail) log.failed++;
                    resolve(fail ? undefined : summarizeChunk(chunk, new StringPool()));
                  },
                  Math.floor(rand() * 4),
                );
              },
              Math.floor(rand() * 3),
            );
          });
          return {
            summary,
            withdraw: () => {
              if (taken) return false;
              withdrawn = true;
              log.withdrawn++;
              log.inFlight--;
              return true;
            },
          };
        },
        close: () => void log.closed++,
      };
    };
  }

  it("feeds the index every chunk in order, read itself where a summary never came or it took the chunk back, as a plain read does", async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const rand = prng(7_000 + seed);
      const file = join(dir, `ledger-${seed}.jsonl`);
      const text = randomLedger(rand, 200 + Math.floor(rand() * 200));
      writeFileSync(file, text);
      const plain = new LedgerIndex();
      await new LedgerFollower(file, plain, { chunkBytes: 1024 }).poll();
      const log: Log = { asked: [], closed: 0, failed: 0, withdrawn: 0, inFlight: 0, most: 0 };
      const fed = new LedgerIndex();
      const read = await new LedgerFollower(file, fed, { chunkBytes: 1024, summarizer: scrambled(rand, log) }).poll();
      expect(answers(fed), `seed ${seed}`).toEqual(answers(plain));
      expect(read.bytesRead).toBe(Buffer.byteLength(text.slice(0, text.lastIndexOf("\n") + 1)));
      expect(log.asked).toEqual([Buffer.byteLength(text)]);
      expect(log.closed).toBe(1);
      expect(fed.linesSummarized).toBeGreaterThan(0);
      expect(log.failed).toBeGreaterThan(0);
      expect(log.withdrawn).toBeGreaterThan(0);
      // chunks are read ahead only as far as the summarizer asks: memory stays bounded on a ledger of any size
      expect(log.most).toBe(4);
    }
  });

  it("reads plainly when the summarizer gives none for the read", async () => {
    const file = join(dir, "small.jsonl");
    writeFileSync(file, `${JSON.stringify(ours())}\n`);
    const asked: number[] = [];
    const fed = new LedgerIndex();
    await new LedgerFollower(file, fed, { summarizer: (bytes) => void asked.push(bytes) }).poll();
    expect(asked).toEqual([Buffer.byteLength(`${JSON.stringify(ours())}\n`)]);
    expect(fed.files()).toEqual(["src/a.ts"]);
    expect(fed.linesSummarized).toBe(0);
  });
});
