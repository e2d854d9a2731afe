import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { isSafeRelative, toWorkspacePath } from "../../server/src/engine/paths";
import { realWorkspacePath, writeLanding } from "../../server/src/io/realPath";

describe("toWorkspacePath", () => {
  const root = join(sep, "work", "ws");
  it("gives the workspace-relative POSIX path of absolute and relative paths inside the workspace", () => {
    expect(toWorkspacePath(root, join(root, "src", "a.ts"))).toBe("src/a.ts");
    expect(toWorkspacePath(root, "src/./api/../a.ts")).toBe("src/a.ts");
    expect(toWorkspacePath(root, "..foo")).toBe("..foo"); // a file named ..foo is inside
    expect(toWorkspacePath(root, join(root, "..foo", "x"))).toBe("..foo/x");
  });

  it("is undefined outside the workspace, and for the workspace itself", () => {
    expect(toWorkspacePath(root, "../../x")).toBeUndefined();
    expect(toWorkspacePath(root, "..")).toBeUndefined();
    expect(toWorkspacePath(root, join(sep, "work", "wsx", "a.ts"))).toBeUndefined(); // a sibling sharing the prefix
    expect(toWorkspacePath(root, join(sep, "etc", "hosts"))).toBeUndefined();
    expect(toWorkspacePath(root, root)).toBeUndefined();
    expect(toWorkspacePath(root, ".")).toBeUndefined();
  });
});

describe("isSafeRelative", () => {
  it("accepts workspace-relative paths", () => {
    for (const p of ["docs/notes.md", "..foo", "a/..b/c", "dist/**", "README.md"]) expect(isSafeRelative(p), p).toBe(true);
  });
  it("refuses absolute paths, .. segments, control characters and line breaks", () => {
    for (const p of ["", "/etc/passwd", "\\\\server\\share", "C:/x", "../x", "a/../../x", "a\\..\\x", "docs\n!src/**", "a\rb", "tab\there", "nul\u0000"]) {
      expect(isSafeRelative(p), JSON.stringify(p)).toBe(false);
    }
  });
});

describe("realWorkspacePath", () => {
  it("follows symbolic links: inside stays inside (as its real path), a link out of the workspace is undefined", () => {
    const base = mkdtempSync(join(tmpdir(), "realpath-"));
    const root = join(base, "ws");
    mkdirSync(join(root, "src/api"), { recursive: true });
    mkdirSync(join(root, "docs"));
    mkdirSync(join(base, "outside"));
    symlinkSync(join(root, "docs"), join(root, "src/api/docs-link"));
    symlinkSync(join(base, "outside"), join(root, "src/api/escape"));
    expect(realWorkspacePath(root, "src/api/new.ts")).toBe("src/api/new.ts");
    expect(realWorkspacePath(root, "src/api/docs-link/notes.md")).toBe("docs/notes.md");
    expect(realWorkspacePath(root, "src/api/escape/x.ts")).toBeUndefined();
    rmSync(base, { recursive: true });
  });
});

describe("writeLanding: a path resolved as the kernel resolves it", () => {
  it("links before `..`, `/` the only separator, folders the spelling names created; what cannot be written fails with a reason", () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "landing-")));
    const root = join(base, "ws");
    mkdirSync(join(root, "src/api"), { recursive: true });
    mkdirSync(join(base, "outside", "deep"), { recursive: true });
    writeFileSync(join(root, "src/api/file.ts"), "");
    symlinkSync(join(base, "outside", "deep"), join(root, "src/api/lnk"));
    symlinkSync("../missing/sub", join(root, "src/api/dangling-dir"));
    symlinkSync("loop-b", join(root, "src/api/loop-a"));
    symlinkSync("loop-a", join(root, "src/api/loop-b"));
    const landing = (p: string) => writeLanding(`${root}/${p}`);
    expect(landing("src/api/lnk/../x.ts")).toEqual({ kind: "file", path: join(base, "outside", "x.ts") });
    expect(landing("src/api/a\\..\\..\\b.ts")).toEqual({ kind: "file", path: join(root, "src/api/a\\..\\..\\b.ts") });
    expect(landing("src//api/./new/../x.ts")).toEqual({ kind: "file", path: join(root, "src/api/x.ts") });
    expect(landing("src/api/new/deeper/x.ts")).toEqual({ kind: "file", path: join(root, "src/api/new/deeper/x.ts") });
    expect(landing("src/api/loop-a")).toEqual({ kind: "fails", reason: `${root}/src/api/loop-a meets more than 40 symbolic links (a loop)` });
    expect(landing("src/api/dangling-dir/x.ts")).toEqual({
      kind: "fails",
      reason: `${root}/src/api/dangling-dir/x.ts goes through a symbolic link to a folder that does not exist`,
    });
    expect(landing("src/api/file.ts/x.ts")).toEqual({ kind: "fails", reason: `a part of ${root}/src/api/file.ts/x.ts that must be a folder is a file` });
    expect(landing("src/api/x.ts/")).toEqual({ kind: "fails", reason: `${root}/src/api/x.ts/ names a folder, not a file` });
    // mkdir -p of `new/x/..` creates new/x as a folder: the write to new/x then fails (found by the soak)
    expect(landing("src/api/new/x/../x")).toEqual({
      kind: "fails",
      reason: `${root}/src/api/new/x/../x names a folder that the write itself creates on the way`,
    });
    expect(landing(`src/api/${"a".repeat(256)}`).kind).toBe("fails");
    expect(writeLanding("src/api/x.ts")).toEqual({ kind: "fails", reason: "src/api/x.ts is not an absolute path" });
    rmSync(base, { recursive: true });
  });
});
