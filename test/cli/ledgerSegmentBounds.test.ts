import { createHash } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { brotliCompressSync, constants as zlib } from "node:zlib";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { git } from "../support/gitRepository";
import { claudeEdit, writeTranscript } from "../support/hookPayloads";
import { TempWorkspace } from "../support/workspace";

/**
 * What a sealed segment may expand to (docs/LEDGER.md "Segments"), seen from outside: a manifest line that
 * names a segment holding other lines than it declares, or more than a segment may hold, is refused with
 * its manifest line by every door, which answer from the other segments; `intent verify` fails on it, and
 * on a manifest line whose blob holds another segment.
 */

beforeAll(ensureBuilt);

const MANIFEST = ".orchestration/agent_trace.sealed";
const LEDGER = ".orchestration/agent_trace.jsonl";
const SEALED_COPY = ".orchestration/.cache/sealed.jsonl";
const REMEDY = `fetch it again with \`intent ledger fetch\`, or remove its line from ${MANIFEST} if no \`intent ledger compact\` wrote it`;

/**
 * Segment bytes whose text is `lines` raw empty lines while the header declares `declared`: Brotli makes
 * two million such lines ~170 bytes.
 */
function forgedSegment(lines: number, declared: number): Buffer {
  const body = Buffer.from('["r",""]\n'.repeat(lines));
  const text = brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_LGWIN]: 24 } });
  const header = { format: "intent-lsp/ledger-segment", version: 1, after: null, lines: declared, from: null, until: null, text_bytes: text.length };
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), text]);
}

describe("sealed segments are bounded by what they declare", () => {
  let ws: TempWorkspace;
  afterEach(() => ws?.dispose());

  /** The example workspace in git, its four records sealed into two segments (two manifest lines). */
  function sealedWorkspace(): TempWorkspace {
    ws = new TempWorkspace();
    git(ws.root, "init", "-q");
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", "example");
    expect(runCli(["ledger", "compact", "--before", "2026-02-21"], { cwd: ws.root }).status).toBe(0);
    expect(runCli(["ledger", "compact", "--before", "2100-01-01"], { cwd: ws.root }).status).toBe(0);
    expect(entries()).toHaveLength(2);
    return ws;
  }

  function entries(): string[] {
    return ws
      .read(MANIFEST)
      .split("\n")
      .filter((l) => l && !l.startsWith("#"));
  }

  /** Stores the bytes as a git blob and appends a manifest line naming them (with `lines` as its count); the segment's name. */
  function addEntry(bytes: Buffer, lines: number): string {
    writeFileSync(ws.path("forged.seg"), bytes);
    const blob = git(ws.root, "hash-object", "-w", "forged.seg").trim();
    rmSync(ws.path("forged.seg"));
    const name = createHash("sha256").update(bytes).digest("hex");
    ws.write(MANIFEST, `${ws.read(MANIFEST)}${name} ${blob} ${lines} - -\n`);
    return name;
  }

  it("a 2,000,000-line segment whose header is off by one is refused; blame, stats, the post hook and verify answer from the other segments", () => {
    sealedWorkspace();
    const blame = runCli(["blame", "src/api/weather.ts"], { cwd: ws.root });
    const stats = runCli(["stats"], { cwd: ws.root });
    expect(blame).toMatchObject({ status: 0, stderr: "" });

    const bytes = forgedSegment(2_000_000, 1_999_999);
    expect(bytes.length).toBeLessThan(200);
    const name = addEntry(bytes, 1_999_999);
    const finding = `${MANIFEST}:4: a sealed segment is refused, its lines left out: refs/intent/ledger:${name}.seg: its header declares 1999999 lines, more than a segment may hold (1000000); ${REMEDY}`;

    expect(runCli(["blame", "src/api/weather.ts"], { cwd: ws.root })).toEqual({
      status: 0,
      stdout: blame.stdout,
      stderr: `intent blame: warning: ${finding}\n`,
    });
    expect(runCli(["stats"], { cwd: ws.root })).toEqual({ status: 0, stdout: stats.stdout, stderr: `intent stats: warning: ${finding}\n` });

    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    const records = ws.read(LEDGER);
    ws.write("src/api/weather.ts", ws.read("src/api/weather.ts").replace("export", "export /* edited */"));
    const post = runCli(["hook", "claude-code"], {
      cwd: ws.root,
      input: JSON.stringify(claudeEdit(ws, "PostToolUse", "src/api/weather.ts", "export", "export /* edited */")),
    });
    expect(post).toMatchObject({ status: 0, stderr: "" });
    expect(ws.read(LEDGER).startsWith(records)).toBe(true);
    expect(ws.read(LEDGER).split("\n").filter(Boolean)).toHaveLength(records.split("\n").filter(Boolean).length + 1);
    // the index reads the two real segments' four lines, none of the forged one's
    expect(ws.read(SEALED_COPY).split("\n").filter(Boolean)).toHaveLength(4);

    const verify = runCli(["verify"], { cwd: ws.root });
    expect(verify.status).toBe(1);
    expect(verify.stdout).toBe(
      `${MANIFEST}:4: segment: refs/intent/ledger:${name}.seg: its header declares 1999999 lines, more than a segment may hold (1000000); ${REMEDY}\n5 records; 1 problem.\n`,
    );
  }, 120_000); // eight commands, each a process of its own

  it("a header that undercounts or overcounts its lines by one, and a manifest line that disagrees with its header, are refused", () => {
    sealedWorkspace();
    const more = addEntry(forgedSegment(1000, 999), 999);
    const fewer = addEntry(forgedSegment(1000, 1001), 1001);
    const miscounted = addEntry(forgedSegment(10, 10), 11);
    const verify = runCli(["verify"], { cwd: ws.root });
    expect(verify.status).toBe(1);
    const found = verify.stdout
      .split("\n")
      .filter((l) => l.startsWith(MANIFEST))
      .sort();
    expect(found).toEqual([
      `${MANIFEST}:4: segment: refs/intent/ledger:${more}.seg: it holds more lines than its header declares (999); ${REMEDY}`,
      `${MANIFEST}:5: segment: refs/intent/ledger:${fewer}.seg: it holds 1000 lines, fewer than its header declares (1001); ${REMEDY}`,
      `${MANIFEST}:6: segment: refs/intent/ledger:${miscounted}.seg: the manifest line says 11 lines, the segment's header 10; ${REMEDY}`,
    ]);
    expect(verify.stdout.endsWith("4 records; 3 problems.\n")).toBe(true);
    const blame = runCli(["blame", "src/api/weather.ts"], { cwd: ws.root });
    expect(blame.stderr.split("\n").filter(Boolean)).toHaveLength(3);
    expect(blame.stderr).toContain(
      `intent blame: warning: ${MANIFEST}:6: a sealed segment is refused, its lines left out: refs/intent/ledger:${miscounted}.seg: the manifest line says 11 lines`,
    );
  });

  it("a refused segment is checked once: later calls warn from what the first one found, without reading it", () => {
    sealedWorkspace();
    const bytes = forgedSegment(1000, 999);
    const name = addEntry(bytes, 999);
    const warning = `intent blame: warning: ${MANIFEST}:4: a sealed segment is refused, its lines left out: refs/intent/ledger:${name}.seg: it holds more lines than its header declares (999); ${REMEDY}\n`;
    expect(runCli(["blame", "src/api/weather.ts"], { cwd: ws.root }).stderr).toBe(warning);
    // the blob gone: a call that read the segment again would find it missing
    const id = createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
    rmSync(ws.path(`.git/objects/${id.slice(0, 2)}/${id.slice(2)}`));
    expect(runCli(["blame", "src/api/weather.ts"], { cwd: ws.root }).stderr).toBe(warning);
  });

  it("outside git, a segment file in the segments folder is refused the same way, named by its file", () => {
    ws = new TempWorkspace();
    expect(runCli(["ledger", "compact", "--before", "2100-01-01"], { cwd: ws.root }).status).toBe(0);
    const blame = runCli(["blame", "src/api/weather.ts"], { cwd: ws.root });
    const bytes = forgedSegment(2_000_000, 1_999_999);
    const name = createHash("sha256").update(bytes).digest("hex");
    const file = `.orchestration/agent_trace.segments/${name}.seg`;
    writeFileSync(ws.path(file), bytes);
    const finding = `${file}: its header declares 1999999 lines, more than a segment may hold (1000000); restore it from git (\`git checkout -- <path>\`), or remove the file if no \`intent ledger compact\` wrote it`;
    expect(runCli(["blame", "src/api/weather.ts"], { cwd: ws.root })).toEqual({
      status: 0,
      stdout: blame.stdout,
      stderr: `intent blame: warning: ${file}:1: a sealed segment is refused, its lines left out: ${finding}\n`,
    });
    expect(runCli(["verify"], { cwd: ws.root })).toEqual({ status: 1, stdout: `${file}:1: segment: ${finding}\n4 records; 1 problem.\n`, stderr: "" });
  });

  it("verify fails on a manifest line whose blob is another well-formed segment", () => {
    sealedWorkspace();
    const [first, second] = entries();
    const [firstName, firstBlob] = first!.split(" ");
    const [secondName, secondBlob] = second!.split(" ");
    ws.write(MANIFEST, ws.read(MANIFEST).replace(`${secondName} ${secondBlob}`, `${secondName} ${firstBlob}`));
    const verify = runCli(["verify"], { cwd: ws.root });
    expect(verify.status).toBe(1);
    expect(verify.stdout).toBe(
      `${MANIFEST}:3: segment: refs/intent/ledger:${secondName}.seg: the blob ${firstBlob} this line names holds segment ${firstName}, not ${secondName}: restore ${MANIFEST} from git, or fetch the segment again with \`intent ledger fetch\`, and verify again\n` +
        // the second segment's records, committed in the live file before they were sealed, are in no segment read
        `HEAD:${LEDGER}:3: removed: these 2 records (HEAD's lines 3-4), committed at HEAD, are in neither the ledger nor a sealed segment that could be read: repair the segments reported here and verify again\n2 records; 2 problems.\n`,
    );
  });
});
