import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changesSince, readSnapshot, takeShellSnapshot } from "../../server/src/io/agent/shellSnapshot";
import { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { runHook } from "../support/cliRunner";
import { git } from "../support/gitRepository";
import { claudePayload } from "../support/hookPayloads";
import { ledgerRecords } from "../support/ledgerFile";

/**
 * What the shell snapshot costs on a large repository (measured and printed, not asserted): 20,000 tracked
 * files, 20 of them modified and 5 untracked before the command. The baseline is `git status` itself, run in
 * the same process: the snapshot's own work on top of it is reading and hashing the dirty files.
 */

const FILES = 20_000;
const DIRTY = 20;

let ws: TempWorkspace;

beforeAll(async () => {
  await ensureBuilt();
  ws = new TempWorkspace();
  ws.write(".orchestration/agent_trace.jsonl", "");
  for (let d = 0; d < FILES / 100; d++) {
    const dir = ws.path(`src/api/gen/d${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 100; f++) writeFileSync(join(dir, `f${f}.ts`), `export const v${d}_${f} = ${d * 100 + f};\n// filler line\n`);
  }
  git(ws.root, "init", "-q");
  git(ws.root, "add", "-A");
  git(ws.root, "commit", "-q", "-m", "large");
  for (let i = 0; i < DIRTY; i++) ws.write(`src/api/gen/d${i}/f0.ts`, `export const dirty${i} = true;\n`);
  for (let i = 0; i < 5; i++) ws.write(`src/api/scratch${i}.ts`, `export const scratch${i} = ${i};\n`);
  ws.select("INT-001");
}, 300_000);

afterAll(() => ws?.dispose());

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function timed(f: () => void): number {
  const t = performance.now();
  f();
  return performance.now() - t;
}

describe("shell snapshot cost", () => {
  it(`${FILES} files, ${DIRTY} dirty: git status alone vs the snapshot and diff, in process and as hook processes`, () => {
    const rounds = 7;
    const status: number[] = [];
    const snap: number[] = [];
    const diff: number[] = [];
    for (let i = 0; i < rounds; i++) {
      status.push(timed(() => spawnSync("git", ["status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames", "--", "."], { cwd: ws.root })));
      snap.push(timed(() => takeShellSnapshot(ws.root, `bench-${i}`, "true")));
      const s = readSnapshot(ws.root, `bench-${i}`)!;
      diff.push(timed(() => expect(changesSince(ws.root, s).changed).toEqual([])));
    }

    const pre: number[] = [];
    const post: number[] = [];
    const readPre: number[] = []; // the same hook process for a Read: what a call costs without a snapshot
    for (let i = 0; i < 5; i++) {
      readPre.push(
        timed(() =>
          runHook(
            "claude-code",
            claudePayload(ws, "PreToolUse", { tool_name: "Read", tool_input: { file_path: ws.path("README.md") }, tool_use_id: `toolu_read_${i}` }),
            { cwd: ws.root },
          ),
        ),
      );
      const command = `echo '// ${i}' >> src/api/gen/d150/f${i}.ts && echo '// ${i}' >> src/api/gen/d151/f${i}.ts`;
      const payload = (event: string) =>
        claudePayload(ws, event, {
          tool_name: "Bash",
          tool_input: { command },
          tool_use_id: `toolu_bench_${i}`,
          ...(event === "PostToolUse" ? { tool_response: { stdout: "" } } : {}),
        });
      pre.push(timed(() => expect(runHook("claude-code", payload("PreToolUse"), { cwd: ws.root }).status).toBe(0)));
      spawnSync("bash", ["-c", command], { cwd: ws.root });
      post.push(timed(() => expect(runHook("claude-code", payload("PostToolUse"), { cwd: ws.root }).status).toBe(0)));
    }
    const records = ledgerRecords(ws);
    expect(records).toHaveLength(5);
    expect(records[4]!.files.map((f: any) => f.path)).toEqual(["src/api/gen/d150/f4.ts", "src/api/gen/d151/f4.ts"]);

    const ms = (x: number) => `${x.toFixed(0)} ms`;
    console.log(
      `shell snapshot on ${FILES} tracked files (${DIRTY} modified, 5 untracked), medians: ` +
        `git status ${ms(median(status))}; snapshot ${ms(median(snap))} (${(median(snap) / median(status)).toFixed(2)}x git status); ` +
        `diff after ${ms(median(diff))} (${(median(diff) / median(status)).toFixed(2)}x); ` +
        `hook processes: Read PreToolUse ${ms(median(readPre))}, Bash PreToolUse ${ms(median(pre))} (+${ms(median(pre) - median(readPre))}), ` +
        `Bash PostToolUse recording 2 files ${ms(median(post))}`,
    );
  });
});
