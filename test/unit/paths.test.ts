import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { isSafeRelative, toWorkspacePath } from "../../server/src/engine/paths";
import { realWorkspacePath } from "../../server/src/io/realPath";

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
