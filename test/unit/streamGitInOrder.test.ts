/**
 * `streamGitInOrder` (io/boundedGit.ts): git commands run side by side, their outputs handed on in order as
 * if run one after the other; a command that holds too much is run again at its turn; the first that fails
 * ends it all. Real git on a real repository; a wrapper in front of git shows the commands ran at once.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { streamGitInOrder } from "../../server/src/io/boundedGit";
import { git } from "../support/gitRepository";
import { TempWorkspace } from "../support/workspace";

const COMMITS = 30;
let ws: TempWorkspace;
let shas: string[];

beforeAll(() => {
  ws = new TempWorkspace();
  git(ws.root, "init", "-q");
  for (let i = 1; i <= COMMITS; i++) {
    ws.write("a.txt", `${"line\n".repeat(i)}`);
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-q", "-m", `commit ${i}`);
  }
  shas = git(ws.root, "rev-list", "--reverse", "HEAD").trim().split("\n");
}, 60_000);

afterAll(() => ws?.dispose());

/** `git log` of each range (oldest first), cut at `cuts` (commit numbers). */
const logs = (cuts: number[]) =>
  [0, ...cuts].map((start, k) => {
    const last = shas[(cuts[k] ?? COMMITS) - 1]!;
    return ["log", "--reverse", "-p", "--format=%s", start === 0 ? last : `${shas[start - 1]}..${last}`, "--"];
  });

async function collect(commands: string[][], heldBytes = 1 << 20, stopAt?: number) {
  const parts: number[] = [];
  let text = "";
  const end = await streamGitInOrder(ws.root, commands, { deadline: Date.now() + 30_000, maxBytes: 1 << 26, heldBytes }, (chunk, part) => {
    if (parts.at(-1) !== part) parts.push(part);
    text += chunk;
    return stopAt === undefined || text.length < stopAt;
  });
  return { end, parts, text };
}

describe("git commands side by side, their outputs in order", () => {
  it("hands on the ranges' logs in order: the same text as one log of the whole history", async () => {
    const whole = git(ws.root, "log", "--reverse", "-p", "--format=%s", "HEAD", "--");
    const r = await collect(logs([7, 15, 22]));
    expect(r.end).toEqual({ kind: "exited", code: 0 });
    expect(r.parts).toEqual([0, 1, 2, 3]);
    expect(r.text).toBe(whole);
    // a range that held more than it may is run again at its turn: the same text
    const again = await collect(logs([7, 15, 22]), 10);
    expect(again.end).toEqual({ kind: "exited", code: 0 });
    expect(again.text).toBe(whole);
  });

  it("runs the commands at once: each starts before the first ends", async () => {
    const bin = mkdtempSync(join(tmpdir(), "intent-git-order-"));
    const path = process.env["PATH"];
    const realGit = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();
    const log = join(bin, "log");
    writeFileSync(log, "");
    // each git says it started; the first range's waits (20 s at most) until all three have started
    writeFileSync(
      join(bin, "git"),
      `#!/bin/sh\necho start >> '${log}'\ni=0; while [ "$(grep -c start '${log}')" -lt 3 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done\n'${realGit}' "$@"; s=$?\necho end >> '${log}'\nexit $s\n`,
    );
    chmodSync(join(bin, "git"), 0o755);
    process.env["PATH"] = `${bin}:${path}`;
    try {
      const r = await collect(logs([10, 20]));
      expect(r.end).toEqual({ kind: "exited", code: 0 });
      expect(readFileSync(log, "utf8").split("\n").slice(0, 3)).toEqual(["start", "start", "start"]);
    } finally {
      process.env["PATH"] = path;
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it("ends at the first command that fails, with what came before it handed on; or when the reader stops", async () => {
    const commands = logs([10, 20]);
    commands[1] = ["log", "--format=%s", "no-such-revision", "--"];
    const r = await collect(commands);
    expect(r.end).toEqual({ kind: "exited", code: 128 });
    expect(r.parts).toEqual([0]);
    expect(r.text).toBe(git(ws.root, "log", "--reverse", "-p", "--format=%s", shas[9]!, "--"));
    const stopped = await collect(logs([10, 20]), 1 << 20, 100);
    expect(stopped.end).toEqual({ kind: "stopped", why: "reader" });
  });
});
