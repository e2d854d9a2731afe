import { describe, expect, it } from "vitest";
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
