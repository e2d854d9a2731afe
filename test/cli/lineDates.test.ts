import { spawnSync } from "node:child_process";
import { gitAt } from "../support/gitRepository";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lineDating } from "../../server/src/io/commitDates";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { TempWorkspace } from "../support/workspace";
import { reportPageData } from "../support/reportPageData";

/**
 * When an untraced line was written (docs/INSIGHT.md): the committer time of the commit that brought it onto
 * the current branch, from one walk of HEAD's first-parent history. A real repository with several commits,
 * a renamed file with a space and a non-ASCII letter in its name, a file deleted and added again, CRLF and
 * no final newline, a binary file, a side branch merged, a change not committed and an untracked file:
 * `intent stats --by day` and `intent report` date every line as expected, and as `git blame` does for every
 * line not merged from the side branch (those date at the merge).
 */

beforeAll(ensureBuilt);

const C1 = "2026-01-05T10:00:00Z";
const C2 = "2026-01-12T10:00:00Z";
const SIDE = "2026-01-20T10:00:00Z";
const C4 = "2026-01-26T10:00:00Z";
const MERGE = "2026-02-02T10:00:00Z";

const lines = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);
const text = (rows: string[]) => `${rows.join("\n")}\n`;

function history(ws: TempWorkspace): void {
  gitAt(ws.root, undefined, "init", "-q");
  // the user's configuration does not change what the walk reads (hunks joined with context between them)
  gitAt(ws.root, undefined, "config", "diff.interHunkContext", "10");
  ws.write("dates/a.ts", text(lines("a", 6)));
  ws.write("dates/gone.ts", text(lines("gone", 2)));
  ws.write("dates/space näme.ts", text(lines("s", 4)));
  ws.write("dates/crlf.txt", "one\r\ntwo\r\nthree\r\n");
  ws.write("dates/nonl.txt", "first\nsecond");
  writeFileSync(ws.path("dates/logo.bin"), Buffer.from([0, 1, 2, 10, 0, 10]));
  gitAt(ws.root, undefined, "add", "-A");
  gitAt(ws.root, C1, "commit", "-q", "-m", "c1");

  // a.ts: line 2 replaced, two lines inserted after line 4; the file renamed with one line changed; one
  // file deleted; a line added after a last line that had no newline (git sees that line changed too)
  const a = lines("a", 6);
  a.splice(1, 1, "a 2 changed");
  a.splice(4, 0, "a new 1", "a new 2");
  ws.write("dates/a.ts", text(a));
  gitAt(ws.root, undefined, "mv", "dates/space näme.ts", "dates/renamed näme.ts");
  const s = lines("s", 4);
  s[2] = "s 3 changed";
  ws.write("dates/renamed näme.ts", text(s));
  gitAt(ws.root, undefined, "rm", "-q", "dates/gone.ts");
  ws.write("dates/nonl.txt", "first\nsecond\nthird\n");
  gitAt(ws.root, undefined, "add", "-A");
  gitAt(ws.root, C2, "commit", "-q", "-m", "c2");

  // a side branch: a.ts's first line changed, a file added
  gitAt(ws.root, undefined, "checkout", "-q", "-b", "side");
  ws.write("dates/a.ts", ws.read("dates/a.ts").replace("a 1\n", "a 1 on side\n"));
  ws.write("dates/side.ts", text(lines("side", 3)));
  gitAt(ws.root, undefined, "add", "-A");
  gitAt(ws.root, SIDE, "commit", "-q", "-m", "side");

  // main: a CRLF line changed, the deleted file added again, then the side branch merged
  gitAt(ws.root, undefined, "checkout", "-q", "main");
  ws.write("dates/crlf.txt", "one\r\nTWO\r\nthree\r\n");
  ws.write("dates/gone.ts", text(lines("back", 3)));
  gitAt(ws.root, undefined, "add", "-A");
  gitAt(ws.root, C4, "commit", "-q", "-m", "c4");
  gitAt(ws.root, MERGE, "merge", "-q", "--no-ff", "-m", "merge side", "side");

  // not committed: a.ts's last line changed; an untracked file
  ws.write("dates/a.ts", ws.read("dates/a.ts").replace("a 6\n", "a 6 by hand\n"));
  ws.write("dates/untracked.txt", text(lines("u", 2)));
}

const iso = (d: string) => new Date(d).toISOString();

/** Each untraced line's date as the report gives it: path → per line (1-based) its ISO time. */
function reportDates(ws: TempWorkspace): Map<string, string[]> {
  const r = runCli(["report", "--out", "-", "--by", "day", "--path", "dates"], { cwd: ws.root });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  const data = reportPageData(r.stdout);
  expect(data.insight.history.undated).toEqual({ lines: 0, reasons: [] });
  const S = data.strings;
  const out = new Map<string, string[]>();
  for (const row of data.rows) {
    const path = S[row[0]!]!;
    const dates = out.get(path) ?? [];
    for (let line = row[1]!; line <= row[2]!; line++) dates[line - 1] = row[10]! >= 0 ? S[row[10]!]! : "undated";
    out.set(path, dates);
  }
  return out;
}

/** `git blame`'s committer time (ISO) and commit for each line of a working-tree file. */
function blameOf(root: string, path: string): { iso: string; sha: string }[] {
  const out = gitAt(root, undefined, "blame", "--line-porcelain", "--", path);
  const rows: { iso: string; sha: string }[] = [];
  let sha = "";
  for (const l of out.split("\n")) {
    const header = /^([0-9a-f]{40}) \d+ \d+/.exec(l);
    if (header) sha = header[1]!;
    else if (l.startsWith("committer-time ")) rows.push({ sha, iso: new Date(Number(l.slice(15)) * 1000).toISOString() });
  }
  return rows;
}

describe("untraced lines dated by the commit that brought them onto the branch", () => {
  let ws: TempWorkspace;
  let today: string;

  beforeAll(() => {
    ws = new TempWorkspace();
    history(ws);
    today = new Date().toISOString().slice(0, 10);
  }, 60_000);

  afterAll(() => ws?.dispose());

  it("intent report dates every untraced line: renames carry lines, merged lines date at the merge, uncommitted ones today", () => {
    const dates = reportDates(ws);
    const day = (d: string) => d.slice(0, 10);
    const days = (path: string) => dates.get(path)!.map((d) => day(d));
    expect(days("dates/a.ts")).toEqual([day(MERGE), day(C2), day(C1), day(C1), day(C2), day(C2), day(C1), today]);
    expect(days("dates/renamed näme.ts")).toEqual([day(C1), day(C1), day(C2), day(C1)]);
    expect(days("dates/crlf.txt")).toEqual([day(C1), day(C4), day(C1)]);
    expect(days("dates/nonl.txt")).toEqual([day(C1), day(C2), day(C2)]);
    expect(days("dates/gone.ts")).toEqual([day(C4), day(C4), day(C4)]);
    expect(days("dates/side.ts")).toEqual([day(MERGE), day(MERGE), day(MERGE)]);
    expect(days("dates/untracked.txt")).toEqual([today, today]);
    // the binary file has no lines to date
    expect(dates.has("dates/logo.bin")).toBe(false);
    expect(dates.get("dates/a.ts")![0]).toBe(iso(MERGE));
  });

  it("agrees with git blame on every line not merged from the side branch", () => {
    const dates = reportDates(ws);
    const side = gitAt(ws.root, undefined, "rev-parse", "side").trim();
    const notCommitted = "0".repeat(40);
    let compared = 0;
    for (const [path, ours] of dates) {
      if (path === "dates/untracked.txt") continue;
      const blamed = blameOf(ws.root, path);
      expect(blamed.length, path).toBe(ours.length);
      blamed.forEach((b, i) => {
        if (b.sha === side) expect(ours[i], `${path}:${i + 1} merged`).toBe(iso(MERGE));
        else if (b.sha === notCommitted) expect(ours[i]!.slice(0, 10), `${path}:${i + 1}`).toBe(today);
        else {
          expect(ours[i], `${path}:${i + 1}`).toBe(b.iso);
          compared++;
        }
      });
    }
    expect(compared).toBe(6 + 4 + 3 + 3 + 3);
  });

  it("intent stats --by day counts the same lines per day", () => {
    const r = runCli(["stats", "--json", "--by", "day", "--path", "dates"], { cwd: ws.root });
    expect(r.stderr).toBe("");
    const s = JSON.parse(r.stdout);
    expect(s.history.undated).toEqual({ lines: 0, reasons: [] });
    expect(s.history.periods.map((p: { period: string; inCode: { untraced: number } }) => [p.period, p.inCode.untraced])).toEqual([
      [C1.slice(0, 10), 3 + 3 + 2 + 1],
      [C2.slice(0, 10), 3 + 1 + 2],
      [C4.slice(0, 10), 1 + 3],
      [MERGE.slice(0, 10), 1 + 3],
      [today, 1 + 2],
    ]);
  });

  it("a shallow clone: lines from before its cut are undated with the reason, those the merge brought are dated", () => {
    const clone = `${ws.root}-shallow`;
    gitAt(ws.root, undefined, "clone", "-q", "--depth", "2", `file://${ws.root}`, clone);
    try {
      const r = runCli(["stats", "--json", "--by", "day", "--path", "dates"], { cwd: clone });
      expect(r.stderr).toBe("");
      const s = JSON.parse(r.stdout);
      expect(s.history.periods.map((p: { period: string; inCode: { untraced: number } }) => [p.period, p.inCode.untraced])).toEqual([
        [MERGE.slice(0, 10), 1 + 3],
      ]);
      // a.ts 7 of its committed lines, renamed näme.ts 4, crlf.txt 3, nonl.txt 3, gone.ts 3
      expect(s.history.undated.lines).toBe(7 + 4 + 3 + 3 + 3);
      expect(s.history.undated.reasons).toEqual([expect.stringContaining("the clone is shallow")]);
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  });

  it("a walk whose patches git reads in ranges side by side dates every line as one walk does", async () => {
    const files = ["dates/a.ts", "dates/renamed näme.ts", "dates/crlf.txt", "dates/nonl.txt", "dates/gone.ts", "dates/side.ts"];
    const bin = mkdtempSync(join(tmpdir(), "intent-git-parts-"));
    const path = process.env["PATH"];
    const realGit = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();
    // a git that notes each patch log it is asked for, with its range
    writeFileSync(
      join(bin, "git"),
      `#!/bin/sh
case "$*" in *" log "*" --first-parent "*" -p "*) echo "$*" >> '${bin}/patch-logs';; esac
exec '${realGit}' "$@"
`,
    );
    chmodSync(join(bin, "git"), 0o755);
    process.env["PATH"] = `${bin}:${path}`;
    const datesAll = async (walk: { parts: number; perPart: number }) => {
      for (const cache of ["insight-lines.json", "insight-lines-base.json"]) rmSync(ws.path(`.orchestration/.cache/${cache}`), { force: true });
      rmSync(join(bin, "patch-logs"), { force: true });
      const dating = await lineDating(ws.root, "worktree", walk);
      const lines = (f: string) => ws.read(f).split("\n").length - (ws.read(f).endsWith("\n") ? 1 : 0);
      return {
        dates: files.map((f) => dating.datesOf(f, [{ start: 1, end: lines(f) }])),
        logs: readFileSync(join(bin, "patch-logs"), "utf8").trim().split("\n"),
      };
    };
    try {
      const one = await datesAll({ parts: 1, perPart: 1 });
      const side = await datesAll({ parts: 3, perPart: 1 });
      expect(one.logs).toHaveLength(1);
      // the first-parent history's 4 commits modify or rename 5 files: 3 ranges, the first from the start
      expect(side.logs).toHaveLength(3);
      // (started at once: in any order)
      expect(side.logs.map((l) => l.replace(/ --$/, "").split(" ").at(-1)!.includes("..")).sort()).toEqual([false, true, true]);
      expect(side.dates).toEqual(one.dates);
      expect(one.dates.every((d) => Array.isArray(d) && d.length > 0)).toBe(true);
    } finally {
      process.env["PATH"] = path;
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it("a report run again with nothing changed is the kept result, its lines not committed yet of the new run's time", () => {
    const runs = ws.path(".orchestration/.cache/insight-runs.bin");
    const page = () => {
      const before = Date.now();
      const r = runCli(["report", "--out", "-", "--by", "day", "--path", "dates"], { cwd: ws.root });
      expect(r.stderr).toBe("");
      return { data: reportPageData(r.stdout), before, after: Date.now() };
    };
    const first = page();
    // the runs' file garbled: a run that reads it counts again and writes it anew
    const garbled = Buffer.alloc(readFileSync(runs).length, 7);
    writeFileSync(runs, garbled);
    const second = page();
    expect(readFileSync(runs)).toEqual(garbled);
    expect(second.data.insight).toEqual(first.data.insight);
    expect(second.data.rows).toEqual(first.data.rows);
    // every string the same but the time of the lines not committed yet: this run's
    const uncommitted = new Set(first.data.rows.filter((r) => r[11] === 1).map((r) => r[10]!));
    expect(uncommitted.size).toBe(1);
    const [slot] = uncommitted;
    expect(second.data.strings.filter((_, i) => i !== slot)).toEqual(first.data.strings.filter((_, i) => i !== slot));
    const at = Date.parse(second.data.strings[slot!]!);
    expect(at).toBeGreaterThanOrEqual(second.before);
    expect(at).toBeLessThanOrEqual(second.after);
    expect(at).toBeGreaterThan(Date.parse(first.data.strings[slot!]!));
    // a file changed: counted again, the runs' file read (garbled: counted again) and written anew
    ws.write("dates/untracked.txt", text(lines("u", 3)));
    try {
      const third = page();
      expect(readFileSync(runs)).not.toEqual(garbled);
      expect(third.data.insight.lines.total).toBe(first.data.insight.lines.total + 1);
    } finally {
      ws.write("dates/untracked.txt", text(lines("u", 2)));
    }
  });

  it("intent check's summary window dates the changed lines by the same rule", () => {
    const c1 = gitAt(ws.root, undefined, "rev-list", "--max-parents=0", "HEAD").trim();
    const r = runCli(
      ["check", "--format", "markdown", "--base", c1, "--path", "dates", "--since", MERGE.slice(0, 10), "--until", MERGE.slice(0, 10), "--by", "day"],
      {
        cwd: ws.root,
      },
    );
    expect(r.stderr).toBe("");
    // changed since c1 and written on the merge's day: a.ts's first line and side.ts's three
    expect(r.stdout).toMatch(new RegExp(`\\| ${MERGE.slice(0, 10)} \\| 4 \\|`));
  });
});

describe("a history walk stopped by its bound", () => {
  it("leaves the lines undated with the reason, never guessed; a later walk in time dates them", async () => {
    const ws = new TempWorkspace();
    const bin = mkdtempSync(join(tmpdir(), "intent-git-slow-"));
    const path = process.env["PATH"];
    try {
      gitAt(ws.root, undefined, "init", "-q");
      ws.write("dates/a.txt", "one\ntwo\nthree\n");
      gitAt(ws.root, undefined, "add", "-A");
      gitAt(ws.root, C1, "commit", "-q", "-m", "c1");
      ws.write("dates/a.txt", "one\nTWO\nthree\n");
      gitAt(ws.root, C2, "commit", "-q", "-am", "c2");
      // a git whose patches wait for a gate file: the walk's bound passes first
      const realGit = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();
      writeFileSync(
        join(bin, "git"),
        `#!/bin/sh\ncase "$*" in *" log "*" --first-parent "*" -p "*) i=0; while [ ! -e '${bin}/gate' ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done;; esac\nexec '${realGit}' "$@"\n`,
      );
      chmodSync(join(bin, "git"), 0o755);
      process.env["PATH"] = `${bin}:${path}`;
      const stopped = (await lineDating(ws.root, "worktree", { ms: 300 })).datesOf("dates/a.txt", [{ start: 1, end: 3 }]);
      expect(stopped).toEqual({ undated: expect.stringContaining("git's history is too large to walk in 0.3 s") });
      writeFileSync(join(bin, "gate"), "");
      const dated = (await lineDating(ws.root, "worktree")).datesOf("dates/a.txt", [{ start: 1, end: 3 }]);
      expect(dated).toEqual([
        { start: 1, end: 1, ms: Date.parse(C1) },
        { start: 2, end: 2, ms: Date.parse(C2) },
        { start: 3, end: 3, ms: Date.parse(C1) },
      ]);
    } finally {
      process.env["PATH"] = path;
      rmSync(bin, { recursive: true, force: true });
      ws.dispose();
    }
  }, 60_000);
});
