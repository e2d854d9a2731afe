import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeFileAtomic } from "../../server/src/io/atomicWrite";

describe("writeFileAtomic", () => {
  const dirs: string[] = [];
  const temp = () => {
    const d = mkdtempSync(join(tmpdir(), "intent-lsp-atomic-"));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("creates missing folders and leaves no temp file behind", () => {
    const root = temp();
    writeFileAtomic(join(root, "a/b/file.json"), "{}\n");
    expect(readFileSync(join(root, "a/b/file.json"), "utf8")).toBe("{}\n");
    expect(readdirSync(join(root, "a/b"))).toEqual(["file.json"]);
  });

  it("keeps the file's mode", () => {
    const root = temp();
    const file = join(root, "script.sh");
    writeFileSync(file, "old");
    chmodSync(file, 0o750);
    writeFileAtomic(file, "new", { durable: false });
    expect(readFileSync(file, "utf8")).toBe("new");
    expect(statSync(file).mode & 0o777).toBe(0o750);
  });

  it("writes through a symlink to its target and keeps the link", () => {
    const root = temp();
    writeFileSync(join(root, "target.yaml"), "old");
    symlinkSync(join(root, "target.yaml"), join(root, "link.yaml"));
    writeFileAtomic(join(root, "link.yaml"), "new");
    expect(lstatSync(join(root, "link.yaml")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(root, "target.yaml"), "utf8")).toBe("new");
  });
});
