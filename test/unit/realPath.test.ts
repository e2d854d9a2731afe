import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { landingPath, realRootOf, resolveWorkspaceWrite, writeLanding } from "../../server/src/io/realPath";

let base: string;
let root: string;
let outside: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "realpath-")));
  root = join(base, "ws");
  outside = join(base, "outside");
  mkdirSync(join(root, "src/api"), { recursive: true });
  mkdirSync(join(root, "docs"));
  mkdirSync(outside);
  symlinkSync(outside, join(root, "out")); // absolute, out of the workspace
  symlinkSync("../../docs", join(root, "src/api/docs")); // relative, inside
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** `name1` → `name2` → … → `name<n>` → `end`: following `name1` takes n links. */
function linkChain(dir: string, n: number, end: string): void {
  for (let i = 1; i <= n; i++) symlinkSync(i === n ? end : `chain${n}-${i + 1}`, join(dir, `chain${n}-${i}`));
}

/** A name under `/` that does not exist: writeLanding only looks, so nothing is created there. */
const absentAtTop = () => `/intent-lsp-absent-${randomUUID()}`;

describe("landingPath: where intent-lsp's own write lands", () => {
  it("follows absolute and relative links from the real root; an absolute path is taken relative to the root", () => {
    expect(landingPath(root, "out/x.ts")).toBe(join(outside, "x.ts"));
    expect(landingPath(root, "src/api/docs/x.md")).toBe(join(root, "docs/x.md"));
    expect(landingPath(root, join(root, "src/a.ts"))).toBe(join(root, "src/a.ts"));
    expect(landingPath(root, "src/new/deeper/x.ts")).toBe(join(root, "src/new/deeper/x.ts"));
  });

  it("follows a link met after `..` out of a folder that does not exist yet", () => {
    expect(landingPath(root, "new/../out/x.ts")).toBe(join(outside, "x.ts"));
  });

  it("follows 40 links and gives up on 41 or a loop; an unreadable root is undefined", () => {
    writeFileSync(join(root, "end.txt"), "");
    linkChain(root, 40, "end.txt");
    linkChain(root, 41, "end.txt");
    symlinkSync("loop-b", join(root, "loop-a"));
    symlinkSync("loop-a", join(root, "loop-b"));
    expect(landingPath(root, "chain40-1")).toBe(join(root, "end.txt"));
    expect(landingPath(root, "chain41-1")).toBeUndefined();
    expect(landingPath(root, "loop-a")).toBeUndefined();
    expect(landingPath(join(base, "absent"), "x.ts")).toBeUndefined();
  });
});

describe("resolveWorkspaceWrite: inside, outside or unresolvable", () => {
  it("is inside, relative to the real root, for a relative or absolute spelling and a root given relative or through a link", () => {
    symlinkSync(root, join(base, "ws-link"));
    expect(resolveWorkspaceWrite(root, "src/a.ts")).toEqual({ kind: "inside", path: "src/a.ts" });
    expect(resolveWorkspaceWrite(root, `${root}/src/a.ts`)).toEqual({ kind: "inside", path: "src/a.ts" });
    expect(resolveWorkspaceWrite(relative(process.cwd(), root), "src/a.ts")).toEqual({ kind: "inside", path: "src/a.ts" });
    expect(resolveWorkspaceWrite(join(base, "ws-link"), "src/api/docs/x.md")).toEqual({ kind: "inside", path: "docs/x.md" });
    expect(resolveWorkspaceWrite("/", `${root.slice(1)}/src/a.ts`)).toEqual({ kind: "inside", path: `${root.slice(1)}/src/a.ts` });
  });

  it("is outside through a link out, and for the root itself", () => {
    expect(resolveWorkspaceWrite(root, "out/x.ts")).toEqual({ kind: "outside" });
    expect(resolveWorkspaceWrite(root, root)).toEqual({ kind: "outside" });
  });

  it("is unresolvable, with the reason, where the write fails or the workspace cannot be read", () => {
    expect(resolveWorkspaceWrite(root, "src/")).toEqual({ kind: "unresolvable", reason: `${root}/src/ names a folder, not a file` });
    const absent = join(base, "absent");
    expect(resolveWorkspaceWrite(absent, "x.ts")).toEqual({ kind: "unresolvable", reason: `the workspace ${absent} cannot be read` });
  });
});

describe("writeLanding: each rule of the kernel's resolution", () => {
  const landing = (p: string) => writeLanding(`${root}/${p}`);
  const file = (p: string) => ({ kind: "file", path: p });
  const failure = (reason: string) => ({ kind: "fails", reason });

  it("follows a relative link from the folder it is in, and an absolute one from `/`", () => {
    expect(landing("src/api/docs/x.md")).toEqual(file(join(root, "docs/x.md")));
    expect(landing("out/x.ts")).toEqual(file(join(outside, "x.ts")));
    symlinkSync(`/..${outside}`, join(root, "up-out")); // `..` of `/` is `/`
    expect(landing("up-out/x.ts")).toEqual(file(join(outside, "x.ts")));
  });

  it("applies `..` to the real folder reached, so a link may lead into a folder the write creates", () => {
    symlinkSync("../new", join(root, "src/api/up")); // dangling until src/new is created
    expect(landing("src/new/../api/up/x.ts")).toEqual(file(join(root, "src/new/x.ts")));
    expect(writeLanding(`/..${root}/src/x.ts`)).toEqual(file(join(root, "src/x.ts")));
  });

  it("skips empty and `.` parts below a folder the write creates", () => {
    expect(landing("src/new//./x.ts")).toEqual(file(join(root, "src/new/x.ts")));
  });

  it("fails where the spelling names a folder: a last part that is empty, `.` or `..`, or one the write creates", () => {
    for (const p of ["src/api/", "src/api/.", "src/api/..", "src/new/..", "src/new/../new"]) {
      expect(landing(p), p).toEqual(failure(`${root}/${p} names a folder${p.endsWith("new") ? " that the write itself creates on the way" : ", not a file"}`));
    }
  });

  it("writes at the top of the file system as anywhere else", () => {
    const top = absentAtTop();
    expect(writeLanding(`${top}/x.ts`)).toEqual(file(`${top}/x.ts`));
    expect(writeLanding(`${top}/../${top.slice(1)}`)).toEqual(failure(`${top}/../${top.slice(1)} names a folder that the write itself creates on the way`));
    expect(writeLanding("/")).toEqual(failure("/ names a folder, not a file"));
  });

  it("follows 40 links and fails at 41", () => {
    writeFileSync(join(root, "end.txt"), "");
    linkChain(root, 40, "end.txt");
    linkChain(root, 41, "end.txt");
    expect(landing("chain40-1")).toEqual(file(join(root, "end.txt")));
    expect(landing("chain41-1")).toEqual(failure(`${root}/chain41-1 meets more than 40 symbolic links (a loop)`));
  });

  it("takes names up to 255 bytes and paths up to 4095 bytes, and fails on longer ones", () => {
    expect(landing(`src/${"a".repeat(255)}`)).toEqual(file(join(root, `src/${"a".repeat(255)}`)));
    expect(landing(`src/${"a".repeat(256)}`)).toEqual(failure(`a name in ${root}/src/${"a".repeat(256)} is longer than 255 bytes`));
    let spelling = `${root}/new`;
    while (spelling.length < 4095 - 202) spelling += `/${"b".repeat(200)}`; // leaves 1 to 201 bytes for the last name
    spelling += `/${"c".repeat(4095 - spelling.length - 1)}`;
    expect(Buffer.byteLength(spelling)).toBe(4095);
    expect(writeLanding(spelling)).toEqual(file(spelling));
    expect(writeLanding(`${spelling}d`)).toEqual(failure("the path is longer than 4095 bytes"));
  });

  it("fails, naming the error, where a folder on the way cannot be looked into", () => {
    // a link to a folder whose real path is near PATH_MAX: the name below it makes a path no lstat accepts
    let deep = join(base, "deep");
    while (deep.length < 4095 - 250) deep = join(deep, "d".repeat(200));
    mkdirSync(deep, { recursive: true });
    symlinkSync(deep, join(root, "deep"));
    const spelling = `${root}/deep/${"n".repeat(250)}`;
    expect(writeLanding(spelling)).toEqual(failure(`a folder on the way to ${spelling} cannot be read (ENAMETOOLONG)`));
  });
});

describe("realRootOf", () => {
  it("is the root with its links followed, or as given when it cannot be read", () => {
    symlinkSync(root, join(base, "ws-link"));
    expect(realRootOf(join(base, "ws-link"))).toBe(root);
    expect(realRootOf(join(base, "absent"))).toBe(join(base, "absent"));
  });
});
