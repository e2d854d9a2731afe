import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { diffTexts } from "../../server/src/engine/lineChange";
import { fileHash } from "../../server/src/engine/hashing";
import { appendWorkspaceRecord } from "../../server/src/io/ledger/append";
import { encodeSegment, writeSegment } from "../../server/src/io/ledger/segments";
import { validateRecord } from "../../server/src/io/ledger/schema";
import { SegmentDecoder } from "../../server/src/engine/ledger/segment";
import { blameTracesInProcess as blameTraces, InProcessEditor } from "../support/inProcessEditor";
import { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { runCli as runCliSpawned, runCliInProcess as runCli } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";
import { LEDGER } from "../support/ledgerFile";
import { DAMAGES, damageFile } from "../support/cacheDamage";

/**
 * The ledger's sealed segments (docs/LEDGER.md "Segments") seen from outside: `intent ledger compact`,
 * every door reading segments before the live file, `intent verify` across them, `intent export`.
 */

beforeAll(ensureBuilt);

const SEGMENTS = ".orchestration/agent_trace.segments";
const MODELS = ["anthropic/claude-sonnet-4-5", "openai/gpt-5", "google/gemini-2.5-pro"];

/**
 * Writes `steps` edits of each of `paths`, interleaved as writers working side by side append them: one record
 * per edit through the product's record builder and appender, a round of edits every `spacingDays` days from
 * `start`. Each edit rewrites a few lines, so owners differ line by line.
 */
async function history(ws: TempWorkspace, paths: readonly string[], start: string, steps: number, spacingDays = 9, seed = 1): Promise<void> {
  const files = paths.map((path) => {
    const lines = Array.from({ length: 24 }, (_, i) => `export const ${path.replace(/\W/g, "_")}_${i} = ${i};`);
    return { path, lines, text: `${lines.join("\n")}\n`, preHash: null as string | null };
  });
  const t0 = Date.parse(start);
  for (let s = 0; s < steps; s++) {
    for (const [k, f] of files.entries()) {
      const before: string | null = f.preHash === null ? null : f.text;
      f.lines = f.lines.map((l, i) => ((i * 7 + s * 5 + seed + k) % 6 === 0 ? `${l.replace(/ \/\/.*$/, "")} // step ${s}` : l));
      if (s % 3 === 1) f.lines.splice((s * 3) % f.lines.length, 0, `// added at step ${s}`);
      f.text = `${f.lines.join("\n")}\n`;
      const record = buildRecord({
        path: f.path,
        content: f.text,
        change: diffTexts(before, f.text),
        contributor: s % 4 === 3 ? { type: "human" } : { type: "ai", modelId: MODELS[(s + seed + k) % MODELS.length]! },
        sessionId: `session-${seed}-${Math.floor(s / 3)}`,
        toolVersion: "0.1.0",
        mutationClass: f.preHash === null ? "FILE_CREATION" : "INTENT_EVOLUTION",
        preHash: f.preHash,
        scope: "PASS",
        intentId: "INT-001",
        revision: "0123456789abcdef0123456789abcdef01234567",
        now: new Date(t0 + s * spacingDays * 86_400_000 + k * 60_000),
      });
      await appendWorkspaceRecord(ws.root, LEDGER, record);
      f.preHash = fileHash(f.text);
    }
  }
  for (const f of files) ws.write(f.path, f.text);
}

function segmentFiles(ws: TempWorkspace): string[] {
  try {
    return readdirSync(ws.path(SEGMENTS)).sort();
  } catch {
    return [];
  }
}

function compact(ws: TempWorkspace, before: string) {
  return runCli(["ledger", "compact", "--before", before], { cwd: ws.root });
}

function liveLines(ws: TempWorkspace): string[] {
  return ws
    .read(LEDGER)
    .split("\n")
    .filter((l) => l.trim());
}

const FILES = ["src/api/weather.ts", "src/api/alerts.ts"];

async function blameAll(root: string): Promise<string[][]> {
  const owners = [];
  for (const f of FILES) owners.push(await blameTraces(root, f));
  return owners;
}

describe("intent ledger compact: records sealed into segments", () => {
  let ws: TempWorkspace;
  afterEach(() => ws?.dispose());

  async function workspace(): Promise<TempWorkspace> {
    ws = new TempWorkspace({ withLedger: false });
    // two files written over five months, interleaved in the ledger as two writers would
    await history(ws, FILES, "2026-01-03T10:00:00Z", 16, 9, 1);
    return ws;
  }

  it("a file whose records span segments and the live file: blame and hover name the same owners as before", async () => {
    await workspace();
    const before = await blameAll(ws.root);
    const records = liveLines(ws).length;

    const r = await compact(ws, "2026-03-20");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^Sealed \d+ lines into 3 segments in \.orchestration\/agent_trace\.segments\/; \.orchestration\/agent_trace\.jsonl keeps \d+\. Commit both\.\n$/,
    );
    expect(segmentFiles(ws)).toHaveLength(3); // January, February, March before the 20th
    const live = liveLines(ws);
    expect(live.length).toBeGreaterThan(0);
    expect(live.length).toBeLessThan(records);
    for (const l of live) expect(Date.parse(JSON.parse(l).timestamp)).toBeGreaterThanOrEqual(Date.parse("2026-03-20"));

    for (const [i, f] of FILES.entries()) expect(await blameTraces(ws.root, f), f).toEqual(before[i]);
    const editor = await InProcessEditor.start(ws.root);
    try {
      for (const [i, f] of FILES.entries()) {
        await editor.open(f, ws.read(f));
        await editor.ledgerRead("README.md");
        expect(await editor.hoverTraces(f), f).toEqual(before[i]);
      }
      const verified = await editor.server.connection.sendRequest("workspace/executeCommand", { command: "intent.verifyLedger", arguments: [] });
      expect(verified).toMatchObject({ ok: true, records, problems: [] });
    } finally {
      await editor.stop();
    }
  });

  it("running it again with the same cut changes nothing; agents keep appending to the live file", async () => {
    await workspace();
    expect((await compact(ws, "2026-03-20")).status).toBe(0);
    const segments = segmentFiles(ws);
    const live = ws.read(LEDGER);
    const again = await compact(ws, "2026-03-20");
    expect(again).toMatchObject({
      status: 0,
      stdout: "Nothing to seal: .orchestration/agent_trace.jsonl holds no record older than 2026-03-20T00:00:00.000Z.\n",
    });
    expect(segmentFiles(ws)).toEqual(segments);
    expect(ws.read(LEDGER)).toBe(live);

    // a new record appended to the live file after compaction chains onto it and is read with the sealed ones
    await history(ws, ["src/api/later.ts"], "2026-06-01T10:00:00Z", 2, 1, 3);
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 0 });
    expect((await blameTraces(ws.root, "src/api/later.ts")).every((o) => o !== "untraced")).toBe(true);
  });

  it.each(DAMAGES)("the decoded copy of the segments $name: blame answers as with it intact, and the copy is made again", async ({ damage }) => {
    await workspace();
    expect((await compact(ws, "2026-03-20")).status).toBe(0);
    const blame = async () => {
      const out = [];
      for (const f of FILES) out.push(await runCli(["blame", f, "--json"], { cwd: ws.root }));
      return out;
    };
    const intact = await blame();
    for (const r of intact) expect(r).toMatchObject({ status: 0, stderr: "" });
    const copy = ws.path(".orchestration/.cache/sealed.jsonl");
    const kept = readFileSync(copy);
    expect(kept.length).toBeGreaterThan(0);
    damageFile(copy, damage);
    expect(await blame()).toEqual(intact);
    expect(readFileSync(copy)).toEqual(kept);
  });

  it("a compaction stopped between writing its segment and cutting the live file loses nothing, and the next one finishes it", async () => {
    await workspace();
    const before = await blameAll(ws.root);
    const original = ws.read(LEDGER);
    // the segment a compaction at 2026-03-20 writes, then the crash: the live file is untouched
    const all = liveLines(ws);
    const sealed = all.slice(
      0,
      all.findIndex((l) => JSON.parse(l).timestamp >= "2026-03-20"),
    );
    writeSegment(
      ws.root,
      LEDGER,
      encodeSegment(
        sealed.map((l) => Buffer.from(l)),
        null,
        JSON.parse(sealed[0]!).timestamp,
        null,
      ),
    );
    expect(ws.read(LEDGER)).toBe(original);

    for (const [i, f] of FILES.entries()) expect(await blameTraces(ws.root, f), f).toEqual(before[i]);
    const verify = await runCli(["verify"], { cwd: ws.root });
    expect(verify.stdout).toBe(`${original.split("\n").filter((l) => l).length} records; no problems.\n`);

    const r = await compact(ws, "2026-03-20");
    expect(r).toMatchObject({
      status: 0,
      stdout: `Removed ${sealed.length} lines a segment already held; .orchestration/agent_trace.jsonl keeps ${liveLines(ws).length}. Commit both.\n`,
    });
    expect(segmentFiles(ws)).toHaveLength(1);
    expect(`${sealed.join("\n")}\n${ws.read(LEDGER)}`).toBe(original);
    for (const [i, f] of FILES.entries()) expect(await blameTraces(ws.root, f), f).toEqual(before[i]);
  });
});

describe("intent verify across segments", () => {
  let ws: TempWorkspace;
  afterEach(() => ws?.dispose());

  it("proves the whole history, and names the segment a changed byte is in", async () => {
    ws = new TempWorkspace({ withLedger: false });
    await history(ws, [FILES[0]!], "2026-01-03T10:00:00Z", 16, 9, 1);
    const records = liveLines(ws).length;
    expect((await compact(ws, "2026-03-20")).status).toBe(0);
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: `${records} records; no problems.\n` });
    expect((await runCli(["doctor"], { cwd: ws.root })).stdout).toContain(`ok       ledger: .orchestration/agent_trace.jsonl: ${records} records verify\n`);

    const [first] = segmentFiles(ws);
    const file = ws.path(`${SEGMENTS}/${first}`);
    const bytes = readFileSync(file);
    bytes[bytes.length - 5]! ^= 0x01;
    writeFileSync(file, bytes);
    const r = await runCli(["verify"], { cwd: ws.root });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`${SEGMENTS}/${first}:1: segment: its bytes do not hash to its name: the segment was changed after it was sealed`);
  });

  it("a record edited inside a segment and the segment re-sealed under its new name breaks the chain at that record", async () => {
    ws = new TempWorkspace({ withLedger: false });
    await history(ws, [FILES[0]!], "2026-01-03T10:00:00Z", 8, 9, 1);
    expect((await compact(ws, "2026-02-01")).status).toBe(0);
    const [name] = segmentFiles(ws);
    const rel = `${SEGMENTS}/${name}`;
    const sealed = decodeAll(ws.path(rel));
    expect(sealed.length).toBeGreaterThan(1);
    // a forger changes who wrote the first record and seals the lines again: the name matches the bytes
    const forged = sealed.map((l, i) => (i === 0 ? l.replace(/"model_id":"[^"]+"/, '"model_id":"forged/model"') : l));
    expect(forged[0]).not.toBe(sealed[0]);
    rmSync(ws.path(rel));
    const newName = writeSegment(
      ws.root,
      LEDGER,
      encodeSegment(
        forged.map((l) => Buffer.from(l)),
        null,
        null,
        null,
      ),
    );
    const r = await runCli(["verify"], { cwd: ws.root });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`${SEGMENTS}/${newName}.seg:1: chain: does not match the hash ${SEGMENTS}/${newName}.seg:2 recorded for the line before it`);
  });
});

// clones, fetches and commits: over the default 30 s when the CI's four test files at once load the cores
describe("in a git repository: segments under refs/intent/ledger, named by the manifest", { timeout: 120_000 }, () => {
  const dirs: TempWorkspace[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) d.dispose();
  });
  const MANIFEST = ".orchestration/agent_trace.sealed";

  function repo(): TempWorkspace {
    const ws = gitWorkspace();
    ws.write(".gitattributes", ".orchestration/agent_trace.jsonl merge=union\n.orchestration/agent_trace.sealed merge=union\n");
    dirs.push(ws);
    return ws;
  }

  /** A bare repository the clones share, as a team shares a remote. */
  function remote(): string {
    const bare = new TempWorkspace({ fromExample: false, withLedger: false });
    dirs.push(bare);
    git(bare.root, "init", "-q", "--bare");
    return bare.root;
  }

  function clone(url: string): TempWorkspace {
    const c = new TempWorkspace({ fromExample: false, withLedger: false });
    dirs.push(c);
    git(c.root, "clone", "-q", url, ".");
    return c;
  }

  function manifestNames(ws: TempWorkspace): string[] {
    return ws
      .read(MANIFEST)
      .split("\n")
      .filter((l) => l && !l.startsWith("#"))
      .map((l) => l.split(" ")[0]!);
  }

  function refSegments(ws: TempWorkspace): string[] {
    return git(ws.root, "ls-tree", "--name-only", "refs/intent/ledger").split("\n").filter(Boolean).sort();
  }

  /**
   * On a new branch of `ws`: eight edits of `path`, the ledger sealed before `cut` and committed, the sealed
   * ref pushed to origin. The file's owners.
   */
  async function sealOnBranch(ws: TempWorkspace, branch: string, path: string, start: string, seed: number, cut: string): Promise<string[]> {
    git(ws.root, "checkout", "-q", "-b", branch);
    await history(ws, [path], start, 8, 3, seed);
    expect((await compact(ws, cut)).status).toBe(0);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", branch);
    expect((await runCli(["ledger", "push"], { cwd: ws.root })).status).toBe(0);
    return blameTraces(ws.root, path);
  }

  it("verify holds the ledger to HEAD's: records cut, emptied or deleted since the commit are named; a compaction removes none", async () => {
    const ws = repo();
    await history(ws, FILES, "2026-01-03T10:00:00Z", 4, 9, 1);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "eight records");
    await history(ws, ["src/api/extra.ts"], "2026-03-01T10:00:00Z", 2, 9, 2);
    const whole = ws.read(LEDGER);
    const lines = liveLines(ws);
    expect(lines).toHaveLength(10);
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: "10 records; no problems.\n" });

    const removed = (first: number, last: number) =>
      `HEAD:${LEDGER}:${first}: removed: these ${last - first + 1} records (HEAD's lines ${first}-${last}), committed at HEAD, are in neither the ledger nor its sealed segments: the ledger was cut short, emptied or rewritten since the last commit.`;
    // the committed records 2, 3 and 5 to 8 cut out, the two written since kept: two runs, each named
    ws.write(LEDGER, `${[lines[0], lines[3], ...lines.slice(8)].join("\n")}\n`);
    const cut = await runCli(["verify"], { cwd: ws.root });
    expect(cut.status).toBe(1);
    expect(cut.stdout).toContain(`${removed(2, 3)} \`git show HEAD:${LEDGER}\` still holds them`);
    expect(cut.stdout).toContain(`${removed(5, 8)} \`git show HEAD:${LEDGER}\` still holds them`);
    ws.write(LEDGER, "");
    expect((await runCli(["verify"], { cwd: ws.root })).stdout).toBe(
      `${removed(1, 8)} \`git show HEAD:${LEDGER}\` still holds them: put them back in place (the lines written since the commit stay after them) and verify again\n0 records; 1 problem.\n`,
    );
    rmSync(ws.path(LEDGER));
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 1, stdout: expect.stringContaining(removed(1, 8)) });
    expect((await runCli(["doctor"], { cwd: ws.root })).stdout).toContain(`problem  ledger: ${removed(1, 8)}`);

    // put back: nothing is missing; sealing the committed records moves them, and verify finds them in the segments
    ws.write(LEDGER, whole);
    expect((await compact(ws, "2026-02-01")).status).toBe(0);
    expect(liveLines(ws).length).toBeLessThan(10);
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: "10 records; no problems.\n" });

    // a committed line that is no record, which verify asks to fix or remove by hand: removed, it is not asked for
    ws.write(LEDGER, `${ws.read(LEDGER)}not a record\n`);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "a stray line");
    expect((await runCli(["verify"], { cwd: ws.root })).stdout).toContain(": unreadable: not valid JSON");
    ws.write(LEDGER, ws.read(LEDGER).replace("not a record\n", ""));
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: "10 records; no problems.\n" });
  });

  it("verify finds lines put before records committed at HEAD, a forged record with a matching prev too; appends and git's merges put none there", async () => {
    const ws = repo();
    await history(ws, FILES, "2026-01-03T10:00:00Z", 3, 9, 1);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "six records");
    await history(ws, ["src/api/extra.ts"], "2026-03-01T10:00:00Z", 2, 9, 2);
    const whole = ws.read(LEDGER);
    const lines = liveLines(ws);
    expect(lines).toHaveLength(8);
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: "8 records; no problems.\n" });

    // a record forged after line 2: its prev is line 2's hash, as the record after it has (a branch the chain allows)
    const forged = JSON.parse(lines[2]!) as { id: string; files: { path: string }[] };
    forged.id = "0b0e6f4c-1d2a-4c3b-8e9f-a1b2c3d4e5f6";
    forged.files[0]!.path = "src/api/forged.ts";
    const insert = (at: number, ...added: string[]) => ws.write(LEDGER, `${[...lines.slice(0, at), ...added, ...lines.slice(at)].join("\n")}\n`);
    insert(2, JSON.stringify(forged));
    const one = await runCli(["verify"], { cwd: ws.root });
    expect(one.status).toBe(1);
    expect(one.stdout).toBe(
      `${LEDGER}:3: inserted: this line is not in the ledger committed at HEAD (\`HEAD:${LEDGER}\`), yet stands before records that are (the last at line 7): records are only appended, so it was put there since the last commit, by hand or by a tool that rewrote the file. \`git diff HEAD -- ${LEDGER}\` shows what changed since; remove what no writer appended and verify again\n9 records; 1 problem.\n`,
    );
    expect((await runCli(["doctor"], { cwd: ws.root })).stdout).toContain(
      `fix: lines were put before records committed at HEAD since the last commit: \`git diff HEAD -- ${LEDGER}\` shows them; remove what no writer appended;`,
    );
    // two runs: one line before the first committed record, two between others; none after the last
    insert(4, lines[6]!.replace(/"id":"[^"]+"/, '"id":"11111111-2222-4333-8444-555555555555"'), JSON.stringify(forged));
    ws.write(LEDGER, `${JSON.stringify({ ...forged, id: "22222222-3333-4444-8555-666666666666" })}\n${ws.read(LEDGER)}`);
    const runs = await runCli(["verify"], { cwd: ws.root });
    expect(runs.stdout).toContain(`${LEDGER}:1: inserted: this line is not in the ledger committed at HEAD`);
    expect(runs.stdout).toContain(`${LEDGER}:6: inserted: these 2 lines (6-7) are not in the ledger committed at HEAD`);
    expect(runs.stdout).toContain("stand before records that are (the last at line 9)");
    expect(runs.stdout.match(/: inserted:/g)).toHaveLength(2);

    // appended after the committed records: nothing is inserted
    ws.write(LEDGER, `${whole}${JSON.stringify(forged)}\n`);
    expect((await runCli(["verify"], { cwd: ws.root })).stdout).not.toContain("inserted");

    // another branch's records merged by git (merge=union): HEAD's come first, theirs after, in progress or committed
    ws.write(LEDGER, whole);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "eight records");
    git(ws.root, "checkout", "-q", "-b", "other", "HEAD~1");
    await history(ws, ["src/api/other.ts"], "2026-04-01T10:00:00Z", 2, 9, 3);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "other's records");
    git(ws.root, "checkout", "-q", "-");
    git(ws.root, "merge", "-q", "--no-commit", "--no-ff", "other");
    expect(liveLines(ws)).toHaveLength(10);
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: "10 records; no problems.\n" });
    git(ws.root, "commit", "-q", "-m", "merged");
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: "10 records; no problems.\n" });
    // a record not committed yet, stashed while HEAD takes the other branch's next one, then put back: after HEAD's
    git(ws.root, "checkout", "-q", "other");
    await history(ws, ["src/api/other.ts"], "2026-05-01T10:00:00Z", 1, 9, 4);
    git(ws.root, "commit", "-q", "-am", "other's next record");
    git(ws.root, "checkout", "-q", "-");
    await history(ws, ["src/api/mine.ts"], "2026-05-02T10:00:00Z", 1, 9, 5);
    const mine = liveLines(ws).at(-1)!;
    git(ws.root, "stash", "-q", "-u");
    git(ws.root, "merge", "-q", "--no-edit", "other");
    git(ws.root, "stash", "pop", "-q");
    expect(liveLines(ws).at(-1)).toBe(mine);
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: "12 records; no problems.\n" });

    // a ledger git does not merge by union: a conflict resolved by hand with the other side's records first is
    // the person's choice while the merge is in progress; a line of neither side is still found
    ws.write(".gitattributes", "");
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "no union");
    git(ws.root, "checkout", "-q", "-b", "theirs");
    await history(ws, ["src/api/theirs.ts"], "2026-06-01T10:00:00Z", 1, 9, 6);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "their record");
    git(ws.root, "checkout", "-q", "-");
    const base = liveLines(ws);
    await history(ws, ["src/api/ours.ts"], "2026-06-02T10:00:00Z", 1, 9, 7);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "our record");
    const ours = liveLines(ws).at(-1)!;
    expect(() => git(ws.root, "merge", "-q", "theirs")).toThrow(/CONFLICT|conflict|failed/);
    const theirs = git(ws.root, "show", `theirs:${LEDGER}`).trimEnd().split("\n").at(-1)!;
    ws.write(LEDGER, `${[...base, theirs, ours].join("\n")}\n`);
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: "14 records; no problems.\n" });
    ws.write(LEDGER, `${[...base, theirs, JSON.stringify(forged), ours].join("\n")}\n`);
    expect((await runCli(["verify"], { cwd: ws.root })).stdout).toContain(`${LEDGER}:14: inserted: this line is not in the ledger committed at HEAD`);
  });

  it("a line put before committed records is found after it was sealed too; a conflict marker is no record put there", async () => {
    const ws = repo();
    await history(ws, FILES, "2026-01-03T10:00:00Z", 3, 9, 1);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "six records");
    const lines = liveLines(ws);
    const forged = JSON.parse(lines[2]!) as { id: string };
    forged.id = "0b0e6f4c-1d2a-4c3b-8e9f-a1b2c3d4e5f6";
    ws.write(LEDGER, `${[...lines.slice(0, 2), JSON.stringify(forged), ...lines.slice(2)].join("\n")}\n`);
    expect((await runCli(["verify"], { cwd: ws.root })).stdout).toContain(`${LEDGER}:3: inserted:`);
    // sealed with the records around it: still before committed ones
    expect((await compact(ws, "2030-01-01")).status).toBe(0);
    const sealed = await runCli(["verify"], { cwd: ws.root });
    expect(sealed.status).toBe(1);
    expect(sealed.stdout).toMatch(/:3: inserted: this line is not in the ledger committed at HEAD .*stands before records that are \(the last at .*:7\)/);
    // committed sealed, the segment holds what HEAD holds
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "sealed");
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: "7 records; no problems.\n" });
    // a conflict marker left before committed records is unreadable, not inserted
    await history(ws, ["src/api/extra.ts"], "2030-03-01T10:00:00Z", 2, 9, 2);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "two more");
    const live = liveLines(ws);
    ws.write(LEDGER, `${["<<<<<<< HEAD", ...live].join("\n")}\n`);
    const marked = (await runCli(["verify"], { cwd: ws.root })).stdout;
    expect(marked).toContain(`${LEDGER}:1: unreadable: not valid JSON`);
    expect(marked).not.toContain("inserted");
  });

  it("verify --base holds a branch's ledger to its merge-base with the base: records cut in a commit of the branch are named", async () => {
    const ws = repo();
    await history(ws, FILES, "2026-01-03T10:00:00Z", 3, 9, 1);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "six records");
    // the base moves on after the branch forked: its newer records are not the branch's to hold
    git(ws.root, "checkout", "-q", "-b", "feature");
    git(ws.root, "checkout", "-q", "main");
    await history(ws, ["src/api/later.ts"], "2026-02-01T10:00:00Z", 1, 9, 3);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "main moves on");
    git(ws.root, "checkout", "-q", "feature");
    await history(ws, ["src/api/extra.ts"], "2026-03-01T10:00:00Z", 1, 9, 2);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "feature's record");
    expect(await runCli(["verify", "--base", "main"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: "7 records; no problems.\n" });
    // the branch cuts its ledger's tail, two records committed before it and its own, and commits that: the
    // chain is whole and HEAD holds the cut file, so only the base can tell
    const lines = liveLines(ws);
    ws.write(LEDGER, `${lines.slice(0, 4).join("\n")}\n`);
    git(ws.root, "commit", "-q", "-am", "tidy the ledger");
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 0 });
    const fork = git(ws.root, "merge-base", "HEAD", "main").trim().slice(0, 12);
    const held = await runCli(["verify", "--base", "main"], { cwd: ws.root });
    expect(held.status).toBe(1);
    expect(held.stdout).toContain(
      `${fork}:${LEDGER}:5: removed: these 2 records (the merge-base with main (${fork})'s lines 5-6), committed at the merge-base with main (${fork}), are in neither the ledger nor its sealed segments: the ledger was cut short, emptied or rewritten since the merge-base with main.`,
    );
    // a base git cannot find: said, never taken for nothing to hold
    const unknown = await runCli(["verify", "--base", "no-such-branch"], { cwd: ws.root });
    expect(unknown.status).toBe(1);
    expect(unknown.stdout).toContain(`${LEDGER}:1: unreadable: the ledger cannot be held to no-such-branch: `);
    expect(await runCli(["verify", "--base", "main", "--ledger", LEDGER], { cwd: ws.root })).toMatchObject({ status: 2 });
  });

  it("verify's hold to HEAD is not switched off by a replace ref, a manifest cut short, or git failing; a CRLF checkout or commit is the same ledger", async () => {
    const ws = repo();
    await history(ws, FILES, "2026-01-03T10:00:00Z", 6, 9, 1);
    expect((await compact(ws, "2026-02-01")).status).toBe(0);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "sealed and live records");
    const live = ws.read(LEDGER);
    const manifest = ws.read(MANIFEST);
    const lines = liveLines(ws);
    expect(lines.length).toBeGreaterThan(2);
    expect(manifestNames(ws).length).toBeGreaterThan(0);

    // a replace ref standing in for HEAD's ledger with the cut file's bytes
    ws.write(LEDGER, `${lines[0]}\n`);
    const cutBlob = git(ws.root, "hash-object", "-w", LEDGER).trim();
    const committedBlob = git(ws.root, "rev-parse", `HEAD:${LEDGER}`).trim();
    git(ws.root, "replace", committedBlob, cutBlob);
    expect((await runCli(["verify"], { cwd: ws.root })).stdout).toContain(`HEAD:${LEDGER}:2: removed: these ${lines.length - 1} records`);
    git(ws.root, "replace", "-d", committedBlob);
    ws.write(LEDGER, live);

    // the newest segment dropped from the manifest: its sealed records are gone
    const kept = manifest.split("\n").filter((l) => l && !l.startsWith("#"));
    const dropped = kept.at(-1)!.split(" ")[0]!;
    ws.write(MANIFEST, manifest.replace(`${kept.at(-1)}\n`, ""));
    const cut = await runCli(["verify"], { cwd: ws.root });
    expect(cut.status).toBe(1);
    expect(cut.stdout).toMatch(
      new RegExp(
        `HEAD:${MANIFEST.replaceAll(".", "\\.")}:\\d+: removed: segment ${dropped} \\(\\d+ sealed lines?\\), named at HEAD, is named by the sealed manifest no more`,
      ),
    );
    ws.write(MANIFEST, manifest);

    // a repository git refuses to read: said, never taken for "nothing committed"
    git(ws.root, "config", "core.repositoryformatversion", "9");
    ws.write(LEDGER, `${lines[0]}\n`);
    const refused = await runCli(["verify"], { cwd: ws.root });
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain(`HEAD:${LEDGER}:1: unreadable: the ledger as committed at HEAD cannot be read (`);
    git(ws.root, "config", "--file", ".git/config", "core.repositoryformatversion", "0");

    // a CRLF checkout of the same ledger: the same chain, no record removed; a record appended there chains
    // to the line as git stores it
    const whole = /^\d+ records; no problems\.\n$/;
    ws.write(LEDGER, live.replaceAll("\n", "\r\n"));
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: expect.stringMatching(whole) });
    await history(ws, ["src/api/crlf.ts"], "2026-04-01T10:00:00Z", 1, 9, 3);
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: expect.stringMatching(whole) });
    // committed with its carriage returns (no conversion), checked out with "\n" line ends again; a record with
    // carriage returns inside it (JSON's white space, read from git in several pieces) keeps them
    ws.write(LEDGER, `${ws.read(LEDGER)}${lines[0]!.replace("{", `{${"\r".repeat(300_000)}`)}\r\n`);
    git(ws.root, "-c", "core.autocrlf=false", "commit", "-q", "-am", "a CRLF ledger");
    ws.write(LEDGER, ws.read(LEDGER).replaceAll("\r\n", "\n"));
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: expect.stringMatching(whole) });
  });

  it("verify holds the ledger HEAD's settings name when config.jsonc points elsewhere since", async () => {
    const ws = repo();
    await history(ws, FILES, "2026-01-03T10:00:00Z", 2, 9, 1);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "four records");
    // the ledger moved whole: nothing is missing
    ws.write(".orchestration/moved.jsonl", ws.read(LEDGER));
    rmSync(ws.path(LEDGER));
    ws.write(".orchestration/config.jsonc", '{ "ledgerPath": ".orchestration/moved.jsonl" }\n');
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: "4 records; no problems.\n" });
    // pointed at a file holding none of them
    ws.write(".orchestration/moved.jsonl", "");
    const r = await runCli(["verify"], { cwd: ws.root });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(
      `HEAD:${LEDGER}:1: removed: these 4 records (HEAD's lines 1-4), committed at HEAD, are in neither the ledger nor its sealed segments`,
    );
  });

  it("verify finds a committed segment file gone (the folder store), and a ledger cut behind a linked folder", async () => {
    const ws = repo();
    await history(ws, FILES, "2026-01-03T10:00:00Z", 4, 9, 1);
    expect((await runCli(["ledger", "compact", "--before", "2026-01-20", "--store", "folder"], { cwd: ws.root })).status).toBe(0);
    expect(liveLines(ws).length).toBeGreaterThan(0);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "sealed into the folder");
    const [newest] = segmentFiles(ws).slice(-1);
    rmSync(ws.path(`${SEGMENTS}/${newest}`));
    const gone = await runCli(["verify"], { cwd: ws.root });
    expect(gone.status).toBe(1);
    expect(gone.stdout).toContain(`HEAD:${SEGMENTS}/${newest}:1: removed: this segment, committed at HEAD, is gone from ${SEGMENTS}`);
    git(ws.root, "checkout", "-q", "HEAD", "--", `${SEGMENTS}/${newest}`);

    // .orchestration a link to a folder of the workspace, committed so: the ledger is held where it really is
    git(ws.root, "mv", ".orchestration", "meta");
    symlinkSync("meta", ws.path(".orchestration"));
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "the rules in meta/");
    expect((await runCli(["verify"], { cwd: ws.root })).status).toBe(0);
    ws.write("meta/agent_trace.jsonl", "");
    const cut = await runCli(["verify"], { cwd: ws.root });
    expect(cut.status).toBe(1);
    expect(cut.stdout).toContain("HEAD:meta/agent_trace.jsonl:1: removed:");
  });

  it("verify says HEAD's ledger holds nothing to hold the file to when it is no records (a Git LFS pointer)", async () => {
    const ws = repo();
    ws.write(LEDGER, "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n");
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "the ledger in LFS");
    ws.write(LEDGER, "");
    await history(ws, FILES, "2026-01-03T10:00:00Z", 1, 9, 1);
    const r = await runCli(["verify"], { cwd: ws.root });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(
      `HEAD:${LEDGER}:1: unreadable: the ledger as committed at HEAD holds no record (3 lines, none of them a record: a Git LFS pointer, or an encrypted file?)`,
    );
  });

  it("verify without git, outside a repository, reads the ledger alone; a ledger linked out of the workspace is not read", async () => {
    const ws = new TempWorkspace();
    dirs.push(ws);
    await history(ws, FILES, "2026-01-03T10:00:00Z", 1, 9, 1);
    // a PATH with no git on it (the CLI is started by node's own path)
    const empty = new TempWorkspace({ fromExample: false, withLedger: false });
    dirs.push(empty);
    expect(existsSync(join(empty.root, "git"))).toBe(false);
    expect(runCliSpawned(["verify"], { cwd: ws.root, env: { PATH: empty.root } })).toMatchObject({ status: 0, stdout: "6 records; no problems.\n" });
    const outside = new TempWorkspace({ fromExample: false, withLedger: false });
    dirs.push(outside);
    outside.write("l.jsonl", ws.read(LEDGER));
    rmSync(ws.path(LEDGER));
    symlinkSync(outside.path("l.jsonl"), ws.path(LEDGER));
    const linked = await runCli(["verify"], { cwd: ws.root });
    expect(linked.status).toBe(1);
    expect(linked.stderr).toContain(`intent verify: cannot read ${LEDGER}: `);
  });

  it("verify says so when the ledger HEAD holds cannot be read, rather than passing unchecked", async () => {
    const ws = repo();
    await history(ws, FILES, "2026-01-03T10:00:00Z", 2, 9, 1);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "four records");
    // the blob gone from the object store, as in a partial clone that never fetched it
    const blob = git(ws.root, "rev-parse", `HEAD:${LEDGER}`).trim();
    rmSync(ws.path(`.git/objects/${blob.slice(0, 2)}/${blob.slice(2)}`));
    const r = await runCli(["verify"], { cwd: ws.root });
    expect(r.status).toBe(1);
    // git's own words say why
    expect(r.stdout).toMatch(
      new RegExp(
        `^HEAD:${LEDGER.replaceAll(".", "\\.")}:1: unreadable: the ledger as committed at HEAD cannot be read \\(fatal: [^)\n]*${blob}[^)\n]*\\), so records removed since the last commit cannot be told;`,
      ),
    );
  });

  it("verify reads HEAD's last record when no newline ends it", async () => {
    const ws = repo();
    await history(ws, FILES, "2026-01-03T10:00:00Z", 2, 9, 1);
    const lines = liveLines(ws);
    ws.write(LEDGER, lines.join("\n")); // committed without a final newline
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "four records");
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: "4 records; no problems.\n" });
    ws.write(LEDGER, `${lines.slice(0, 3).join("\n")}\n`);
    expect((await runCli(["verify"], { cwd: ws.root })).stdout).toContain(
      `HEAD:${LEDGER}:4: removed: this record, committed at HEAD, is in neither the ledger nor its sealed segments`,
    );
  });

  it("the working tree keeps the live file and a manifest; every door reads the sealed records from git", async () => {
    const ws = repo();
    await history(ws, FILES, "2026-01-03T10:00:00Z", 16, 9, 1);
    const original = ws.read(LEDGER);
    const before = await blameAll(ws.root);

    const r = await compact(ws, "2026-03-20");
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(
      /^Sealed \d+ lines into 3 segments in refs\/intent\/ledger \(named in \.orchestration\/agent_trace\.sealed\); \.orchestration\/agent_trace\.jsonl keeps \d+\. Commit \.orchestration\/agent_trace\.sealed and \.orchestration\/agent_trace\.jsonl, and share the segments with `intent ledger push`\.\n$/,
    );
    expect(segmentFiles(ws)).toEqual([]);
    const names = manifestNames(ws);
    expect(names).toHaveLength(3);
    expect(refSegments(ws)).toEqual(names.map((n) => `${n}.seg`).sort());
    // each entry: the segment's SHA-256, git's blob of exactly those bytes, its lines and its first and last time
    const [entry] = ws.read(MANIFEST).split("\n").slice(1);
    expect(entry).toMatch(/^[0-9a-f]{64} [0-9a-f]{40} \d+ 2026-01-03T10:00:00\.000Z 2026-01-\d\dT10:0\d:00\.000Z$/);

    for (const [i, f] of FILES.entries()) expect(await blameTraces(ws.root, f), f).toEqual(before[i]);
    expect(await runCli(["verify"], { cwd: ws.root })).toMatchObject({
      status: 0,
      stdout: `${original.split("\n").filter((l) => l).length} records; no problems.\n`,
    });
    expect((await runCli(["export"], { cwd: ws.root })).stdout).toBe(original);
    const editor = await InProcessEditor.start(ws.root);
    try {
      await editor.open(FILES[0]!, ws.read(FILES[0]!));
      await editor.ledgerRead("README.md");
      expect(await editor.hoverTraces(FILES[0]!)).toEqual(before[0]);
    } finally {
      await editor.stop();
    }
  });

  it("a clone without the sealed history names what is missing and how to fetch it; fetched, it reads as the original", async () => {
    const ws = repo();
    const url = remote();
    await history(ws, [FILES[0]!], "2026-01-03T10:00:00Z", 16, 9, 1);
    const before = await blameTraces(ws.root, FILES[0]!);
    expect((await compact(ws, "2026-03-20")).status).toBe(0);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "ledger");
    git(ws.root, "remote", "add", "origin", url);
    git(ws.root, "push", "-q", "origin", "main");

    const c = clone(url);
    const missing = await runCli(["blame", FILES[0]!], { cwd: c.root });
    expect(missing.stderr).toMatch(
      /^intent blame: warning: \.orchestration\/agent_trace\.sealed:2: the ledger's sealed segments cannot be read: 3 segments \(9 lines, 2026-01-03 to 2026-03-1\d\) are not in this clone: fetch the sealed history with `intent ledger fetch` \(git fetch origin refs\/intent\/ledger\)\n$/,
    );
    const unverified = await runCli(["verify"], { cwd: c.root });
    expect(unverified.status).toBe(1);
    for (const line of [2, 3, 4])
      expect(unverified.stdout).toMatch(
        new RegExp(
          `\\.orchestration/agent_trace\\.sealed:${line}: segment: segment [0-9a-f]{12} \\(\\d+ lines, 2026-0\\d-\\d\\d to 2026-0\\d-\\d\\d\\) is not in this clone`,
        ),
      );
    expect(await runCli(["ledger", "fetch"], { cwd: c.root })).toMatchObject({
      status: 0,
      stdout: "origin has no sealed ledger segments (refs/intent/ledger) yet.\n",
    });

    expect(await runCli(["ledger", "push"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: "Pushed refs/intent/ledger to origin.\n" });
    expect(await runCli(["ledger", "fetch"], { cwd: c.root })).toMatchObject({
      status: 0,
      stdout: "Fetched origin's sealed ledger segments into refs/intent/ledger.\n",
    });
    expect(refSegments(c)).toEqual(refSegments(ws));
    expect(await blameTraces(c.root, FILES[0]!)).toEqual(before);
    expect((await runCli(["blame", FILES[0]!], { cwd: c.root })).stderr).toBe("");
    expect((await runCli(["verify"], { cwd: c.root })).status).toBe(0);
  });

  it("after `intent init`, a plain `git fetch` brings the sealed history too, also before anyone sealed", async () => {
    const ws = repo();
    const url = remote();
    git(ws.root, "remote", "add", "origin", url);
    git(ws.root, "push", "-q", "origin", "main");
    const c = clone(url);
    const init = await runCli(["init"], { cwd: c.root });
    expect(init.stdout).toContain("configured git: a fetch from origin also brings the sealed ledger (refs/intent/ledger)\n");
    expect((await runCli(["init"], { cwd: c.root })).stdout).not.toContain("configured git");
    git(c.root, "fetch", "-q", "origin"); // nobody sealed yet: the fetch still succeeds

    await history(ws, [FILES[0]!], "2026-01-03T10:00:00Z", 12, 9, 1);
    const before = await blameTraces(ws.root, FILES[0]!);
    expect((await compact(ws, "2026-03-01")).status).toBe(0);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "ledger");
    git(ws.root, "push", "-q", "origin", "main");
    expect((await runCli(["ledger", "push"], { cwd: ws.root })).status).toBe(0);

    git(c.root, "stash", "-q", "--include-untracked");
    git(c.root, "pull", "-q"); // as a person pulls: the configured refspecs apply
    expect(await blameTraces(c.root, FILES[0]!)).toEqual(before);
    expect((await runCli(["blame", FILES[0]!], { cwd: c.root })).stderr).toBe("");
  });

  it("two clones that each appended and compacted on their own branches merge without conflicts, code and sealed history", async () => {
    const a = repo();
    const url = remote();
    await history(a, [FILES[0]!], "2026-01-03T10:00:00Z", 6, 9, 1);
    git(a.root, "add", "-A");
    git(a.root, "commit", "-q", "-m", "shared history");
    git(a.root, "remote", "add", "origin", url);
    git(a.root, "push", "-q", "origin", "main");
    const b = clone(url);
    const ownersShared = await blameTraces(a.root, FILES[0]!);

    const ownersA = await sealOnBranch(a, "a", "src/api/a.ts", "2026-03-01T10:00:00Z", 2, "2026-02-10");
    // b's push takes a's segments in first: the remote ends with both clones' segments
    const ownersB = await sealOnBranch(b, "b", "src/api/b.ts", "2026-03-02T10:00:00Z", 3, "2026-03-15");
    git(b.root, "push", "-q", "origin", "b");

    git(a.root, "fetch", "-q", "origin");
    git(a.root, "merge", "-q", "--no-edit", "origin/b");
    expect(git(a.root, "status", "--porcelain")).toBe("");
    expect((await runCli(["ledger", "fetch"], { cwd: a.root })).status).toBe(0);
    // January's segment is the same on both branches (same lines, same predecessor: same name); a sealed
    // part of February, b all of it and its March: the record of February both hold is read once
    expect(manifestNames(a)).toHaveLength(4);
    expect(refSegments(a)).toEqual(
      manifestNames(a)
        .map((n) => `${n}.seg`)
        .sort(),
    );
    expect(await blameTraces(a.root, "src/api/a.ts")).toEqual(ownersA);
    expect(await blameTraces(a.root, "src/api/b.ts")).toEqual(ownersB);
    expect(await blameTraces(a.root, FILES[0]!)).toEqual(ownersShared);
    expect(await runCli(["verify"], { cwd: a.root })).toMatchObject({ status: 0 });
    // every record once: 6 shared, 8 of each branch
    const exported = (await runCli(["export"], { cwd: a.root })).stdout.split("\n").filter((l) => l);
    expect(exported).toHaveLength(22);
    expect(new Set(exported.map((l) => JSON.parse(l).id)).size).toBe(22);
  });

  it("a torn last line stays in the live file across a compaction; the next record starts a fresh line after it", async () => {
    const ws = repo();
    await history(ws, FILES, "2026-01-03T10:00:00Z", 10, 9, 1);
    const records = liveLines(ws).length;
    const before = await blameAll(ws.root);
    const torn = '{"version":"0.1.0","id":"torn-by-a-crash';
    writeFileSync(ws.path(LEDGER), `${ws.read(LEDGER)}${torn}`);

    expect((await compact(ws, "2026-03-01")).status).toBe(0);
    expect(ws.read(LEDGER).endsWith(`\n${torn}`)).toBe(true);
    await history(ws, ["src/api/later.ts"], "2026-06-01T10:00:00Z", 1, 1, 3);
    const live = ws.read(LEDGER).split("\n");
    expect(live).toContain(torn);
    expect(JSON.parse(live[live.indexOf(torn) + 1]!).files[0].path).toBe("src/api/later.ts");

    for (const [i, f] of FILES.entries()) expect(await blameTraces(ws.root, f), f).toEqual(before[i]);
    const r = await runCli(["verify"], { cwd: ws.root });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe(
      `.orchestration/agent_trace.jsonl:${live.indexOf(torn) + 1}: torn: incomplete record (a later append continued on a fresh line): a write was interrupted, e.g. a crash mid-append; the bytes stay for inspection, the record they held is lost\n${records + 1} records; 1 problem.\n`,
    );
  });

  it("a ledger sealed into the segments folder keeps working, and the next compaction moves its segments into git", async () => {
    const ws = repo();
    await history(ws, FILES, "2026-01-03T10:00:00Z", 16, 9, 1);
    const original = ws.read(LEDGER);
    const before = await blameAll(ws.root);
    expect((await runCli(["ledger", "compact", "--before", "2026-03-01", "--store", "folder"], { cwd: ws.root })).status).toBe(0);
    expect(segmentFiles(ws)).toHaveLength(2);
    for (const [i, f] of FILES.entries()) expect(await blameTraces(ws.root, f), f).toEqual(before[i]);

    const r = await compact(ws, "2026-03-20");
    expect(r.stdout).toMatch(
      /^Moved 2 segments from \.orchestration\/agent_trace\.segments\/ into refs\/intent\/ledger \(named in \.orchestration\/agent_trace\.sealed\); sealed \d+ lines into 1 segment in refs/,
    );
    expect(segmentFiles(ws)).toEqual([]);
    expect(manifestNames(ws)).toHaveLength(3);
    for (const [i, f] of FILES.entries()) expect(await blameTraces(ws.root, f), f).toEqual(before[i]);
    expect((await runCli(["verify"], { cwd: ws.root })).status).toBe(0);
    expect((await runCli(["export"], { cwd: ws.root })).stdout).toBe(original);
  });

  it("a manifest that names a blob of other bytes, or a line that is no entry, is reported by verify", async () => {
    const ws = repo();
    await history(ws, [FILES[0]!], "2026-01-03T10:00:00Z", 8, 9, 1);
    expect((await compact(ws, "2026-02-01")).status).toBe(0);
    const [header, entry] = ws.read(MANIFEST).split("\n");
    const forged = entry!.replace(/^(\S+) \S+/, `$1 ${git(ws.root, "rev-parse", "HEAD:README.md").trim()}`);
    ws.write(MANIFEST, `${header}\n${forged}\nnot an entry\n`);
    const r = await runCli(["verify"], { cwd: ws.root });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(".orchestration/agent_trace.sealed:3: segment: not a segment entry");
    expect(r.stdout).toMatch(/agent_trace\.sealed:2: segment: refs\/intent\/ledger:[0-9a-f]{64}\.seg: /);
  });
});

describe("intent export", () => {
  let ws: TempWorkspace;
  let copy: TempWorkspace | undefined;
  afterEach(() => {
    ws?.dispose();
    copy?.dispose();
  });

  it("writes any period across segments as the records their writers wrote; re-imported, blame is the same", async () => {
    ws = new TempWorkspace({ withLedger: false });
    await history(ws, [FILES[0]!], "2026-01-03T10:00:00Z", 16, 9, 1);
    const original = ws.read(LEDGER);
    const before = await blameTraces(ws.root, FILES[0]!);
    expect((await compact(ws, "2026-03-20")).status).toBe(0);

    const all = await runCli(["export", "--out", "all.jsonl"], { cwd: ws.root });
    expect(all).toMatchObject({ status: 0, stdout: "Wrote 16 records to all.jsonl.\n" });
    expect(ws.read("all.jsonl")).toBe(original);
    for (const l of ws
      .read("all.jsonl")
      .split("\n")
      .filter((x) => x))
      expect(validateRecord(JSON.parse(l))).toEqual([]);

    const february = await runCli(["export", "--since", "2026-02-01", "--until", "2026-03-01"], { cwd: ws.root });
    const expected = original.split("\n").filter((l) => l && JSON.parse(l).timestamp >= "2026-02-01" && JSON.parse(l).timestamp < "2026-03-01");
    expect(expected.length).toBeGreaterThan(0);
    expect(february).toMatchObject({ status: 0, stdout: `${expected.join("\n")}\n` });

    copy = new TempWorkspace({ withLedger: false });
    copy.write(FILES[0]!, ws.read(FILES[0]!));
    copy.write(LEDGER, ws.read("all.jsonl"));
    expect(await blameTraces(copy.root, FILES[0]!)).toEqual(before);
  });
});

function decodeAll(file: string): string[] {
  const bytes = readFileSync(file);
  const nl = bytes.indexOf(0x0a);
  const header = JSON.parse(bytes.subarray(0, nl).toString("utf8"));
  const textEnd = nl + 1 + header.text_bytes;
  const body = brotliDecompressSync(bytes.subarray(nl + 1, textEnd)).toString("utf8");
  const decoder = new SegmentDecoder(bytes.subarray(textEnd));
  return body
    .split("\n")
    .filter((l) => l)
    .map((l, i) => decoder.decode(l, `${file}:${i + 1}`).toString("utf8"));
}
