import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { prng } from "../support/protocolFuzz";
import { filterNamesInKeys, gitConfigNames } from "../../server/src/engine/gitConfigText";

/** The filter drivers and includes a git configuration file names, as git reads the file. */

describe("gitConfigNames", () => {
  it("names every filter driver, quoted or in the older dotted form, and every include's path", () => {
    const text = [
      "[core]",
      "\tfsmonitor = true",
      '[filter "lfs"]',
      "\tclean = git-lfs clean -- %f",
      '[filter "we=ird.name"] smudge = cat',
      "[Filter.Old]",
      "\tprocess = x",
      "[include]",
      '\tpath = "~/more.gitconfig" ; a comment',
      '[includeIf "gitdir:~/work/"]',
      "\tpath = work.gitconfig",
      '[diff "lfs"]',
      "\ttextconv = cat",
    ].join("\n");
    expect(gitConfigNames(text)).toEqual({ filters: ["lfs", "we=ird.name", "old"], includes: ["~/more.gitconfig", "work.gitconfig"] });
  });

  it("a section with no key names no driver; a path outside include is no include", () => {
    expect(gitConfigNames('[filter "empty"]\n[remote "origin"]\n\tpath = x\n')).toEqual({ filters: [], includes: [] });
  });
});

describe("filterNamesInKeys", () => {
  it("takes the driver's name from a key set through the environment, dots and all", () => {
    expect(filterNamesInKeys(["core.pager", "filter.a.b.clean", "FILTER.Up.smudge", "filter.x"])).toEqual(["a.b", "Up"]);
  });
});

/** The filter drivers git itself reads in a configuration file (no includes): the oracle for `gitConfigNames`. */
function gitsFilterNames(text: string): string[] | undefined {
  const file = join(dir, "config");
  writeFileSync(file, text);
  const r = spawnSync("git", ["config", "--file", file, "--list", "--name-only", "-z"], { encoding: "utf8" });
  // a file git cannot read makes every git call there fail: no driver of it runs
  return r.status === 0 ? filterNamesInKeys(r.stdout.split("\0")) : undefined;
}

const dir = mkdtempSync(join(tmpdir(), "intent-lsp-gitconfig-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("gitConfigNames against git's own reading", () => {
  it("names each driver git reads in files written with CRLF, U+2028 or other odd characters around the header", () => {
    for (const text of [
      '[filter "crlf"]\r\n\tclean = x\r\n',
      '[filter "ls"] # \u2028\n\tclean = x\n',
      '[filter "ps"] ; \u2029 \r\n\tsmudge = x\n',
      '[filter "tail"] clean = x\r\n',
      '\ufeff[filter "bom"]\n\tclean = x\n',
    ]) {
      const git = gitsFilterNames(text);
      expect(git?.length, JSON.stringify(text)).toBe(1);
      expect(gitConfigNames(text).filters, JSON.stringify(text)).toEqual(expect.arrayContaining(git!));
    }
  });

  it("names every driver git reads, on 300 random files", () => {
    const random = prng(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const ends = ["\n", "\r\n", " ; note\n", " # \u2028\n", "\t\n", " \r\n"];
    const spaces = ["", " ", "\t", "  "];
    const line = (): string => {
      const sp = pick(spaces);
      switch (Math.floor(random() * 6)) {
        case 0:
          return `${sp}[${pick(["filter", "FILTER", "Filter", "diff", "core"])} "${pick(["a", "B", "c d", 'q\\"t', "e.f", "g=h"])}"]${sp}`;
        case 1:
          return `${sp}[${pick(["filter", "Filter"])}.${pick(["old", "Mixed", "x-y"])}]`;
        case 2:
          return `${sp}${pick(["clean", "smudge", "process", "required", "Clean"])}${sp}=${sp}${pick(["x", '"y z"', "a \\", ""])}`;
        case 3:
          return `${sp}${pick(["[core]", "[include]", "\tpath = p", "# comment", "; other"])}`;
        case 4:
          return `${sp}[filter "${pick(["in", "line"])}"]${sp}${pick(["clean", "smudge"])} = x`;
        default:
          return "";
      }
    };
    let checked = 0;
    for (let n = 0; n < 300; n++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 8) }, () => line() + pick(ends)).join("");
      const git = gitsFilterNames(text);
      if (git === undefined) continue;
      checked++;
      expect(gitConfigNames(text).filters, JSON.stringify(text)).toEqual(expect.arrayContaining(git));
    }
    // most files are ones git reads: the comparison is not empty
    expect(checked).toBeGreaterThan(150);
  });
});
