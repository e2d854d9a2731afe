import { execFileSync } from "node:child_process";
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stashBefore } from "../../server/src/io/agent/agentWrite";
import { addToIntentIgnore } from "../../server/src/io/intentIgnore";
import { regenerateIntentMap } from "../../server/src/io/intentMap";
import { loadIntents } from "../../server/src/engine/intents/load";
import { modifyIntentsFile } from "../../server/src/io/intents/store";
import { transition } from "../../server/src/engine/intents/writeback";
import { appendWorkspaceRecord } from "../../server/src/io/ledger/append";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { noteLesson } from "../../server/src/io/lessons";
import { ownFilePath, replaceOwnFileInSteps, UnsafeWriteError, writeNamedFile } from "../../server/src/io/ownFiles";
import { landingPath, realWorkspacePath } from "../../server/src/io/realPath";
import { newSessionRecord } from "../../server/src/engine/sessions";
import { readWorkspaceSelection, removeSession, writeSession, writeWorkspaceSelection } from "../../server/src/io/sessionFiles";
import { readOptional } from "../../server/src/io/optionalFile";

const INTENTS = `active_intents:
  - id: INT-001
    name: Build Weather API
    status: IN_PROGRESS
    owned_scope: ["src/api/**"]
`;

/** Every file under `dir` with its content (links listed as links), to prove nothing there changed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p, { throwIfNoEntry: false });
      if (st?.isDirectory()) walk(p);
      else out[relative(dir, p)] = st ? readFileSync(p, "utf8") : "(dangling)";
    }
  };
  walk(dir);
  return out;
}

let base: string;
let root: string;
let outside: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "own-files-"));
  root = join(base, "ws");
  outside = join(base, "outside");
  mkdirSync(join(root, ".orchestration"), { recursive: true });
  mkdirSync(join(root, "src/api"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, "sentinel.txt"), "keep me\n");
  writeFileSync(join(root, ".orchestration/active_intents.yaml"), INTENTS);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe("replaceOwnFileInSteps", () => {
  const FILE = ".orchestration/.cache/steps.bin";
  const written = (parts: string[], failAt?: number) =>
    function* (fd: number): Generator<void> {
      for (const [i, part] of parts.entries()) {
        if (i === failAt) throw new Error("the disk is full");
        writeFileSync(fd, part);
        yield;
      }
    };
  const files = () => readdirSync(join(root, ".orchestration/.cache")).sort();

  it("replaces the file only after the last step, and leaves no temporary file", () => {
    mkdirSync(join(root, ".orchestration/.cache"));
    writeFileSync(join(root, FILE), "old");
    const steps = replaceOwnFileInSteps(root, FILE, written(["one ", "two ", "three"]));
    expect(steps.next().done).toBe(false);
    expect(steps.next().done).toBe(false);
    // half written: readers still see the old file whole
    expect(readFileSync(join(root, FILE), "utf8")).toBe("old");
    for (let step = steps.next(); !step.done; step = steps.next());
    expect(readFileSync(join(root, FILE), "utf8")).toBe("one two three");
    expect(files()).toEqual(["steps.bin"]);
  });

  it("leaves the file as it was, and no temporary file, when a step fails or the steps are given up", () => {
    mkdirSync(join(root, ".orchestration/.cache"));
    writeFileSync(join(root, FILE), "old");
    const failing = replaceOwnFileInSteps(root, FILE, written(["one ", "two "], 1));
    failing.next();
    expect(() => failing.next()).toThrow("the disk is full");
    const givenUp = replaceOwnFileInSteps(root, FILE, written(["one ", "two "]));
    givenUp.next();
    expect(files().length).toBe(2); // the file and the half-written temporary one
    givenUp.return(undefined);
    expect(readFileSync(join(root, FILE), "utf8")).toBe("old");
    expect(files()).toEqual(["steps.bin"]);
  });

  it("is refused where the file would land outside the workspace, writing nothing", () => {
    symlinkSync(outside, join(root, ".orchestration/.cache"));
    expect(() => replaceOwnFileInSteps(root, FILE, written(["x"])).next()).toThrow(UnsafeWriteError);
    expect(readdirSync(outside)).toEqual(["sentinel.txt"]);
  });
});

describe("where a write really lands", () => {
  it("follows dangling links to where the write would create the file", () => {
    symlinkSync(join(outside, "new.ts"), join(root, "src/api/escape.ts")); // dangling, absolute
    symlinkSync("../../docs/later.md", join(root, "src/api/later.md")); // dangling, relative, inside
    symlinkSync("loop-b", join(root, "src/api/loop-a"));
    symlinkSync("loop-a", join(root, "src/api/loop-b"));
    expect(landingPath(root, "src/api/escape.ts")).toBe(join(outside, "new.ts"));
    expect(realWorkspacePath(root, "src/api/escape.ts")).toBeUndefined();
    // the kernel creates a dangling link's target only in a folder that exists: until docs/ does, the write fails
    expect(realWorkspacePath(root, "src/api/later.md")).toBeUndefined();
    mkdirSync(join(root, "docs"));
    expect(realWorkspacePath(root, "src/api/later.md")).toBe("docs/later.md");
    expect(realWorkspacePath(root, "src/api/loop-a")).toBeUndefined();
  });

  it("ownFilePath: inside the workspace only, and only a regular file", () => {
    symlinkSync(outside, join(root, ".orchestration/.sessions"));
    expect(() => ownFilePath(root, ".orchestration/.sessions/x.json")).toThrow(UnsafeWriteError);
    expect(() => ownFilePath(root, ".orchestration/.sessions/x.json")).toThrow(/leads outside the workspace \(to .*outside\/x\.json\) through a symbolic link/);
    execFileSync("mkfifo", [join(root, ".orchestration/AGENT.md")]);
    expect(() => ownFilePath(root, ".orchestration/AGENT.md")).toThrow(/is a FIFO \(named pipe\), where intent-lsp expects a regular file/);
    expect(ownFilePath(root, ".orchestration/intent_map.md")).toBe(join(realpathSync(root), ".orchestration/intent_map.md"));
  });
});

describe("every writer of intent-lsp's own files refuses to write outside the workspace", () => {
  it(".orchestration/.sessions linked out: no session file, selection or stash lands there", async () => {
    symlinkSync(outside, join(root, ".orchestration/.sessions"));
    const before = snapshot(outside);
    expect(() => writeWorkspaceSelection(root, "INT-001", "test")).toThrow(UnsafeWriteError);
    expect(() => writeSession(root, newSessionRecord("lsp-x", "test", { pid: 0, host: "test-host" }))).toThrow(UnsafeWriteError);
    expect(() => stashBefore(root, "call", "src/api/a.ts")).toThrow(UnsafeWriteError);
    writeFileSync(join(outside, "lsp-y.json"), "{}");
    removeSession(root, "lsp-y"); // never deletes there either
    expect(snapshot(outside)).toEqual({ ...before, "lsp-y.json": "{}" });
    expect(readWorkspaceSelection(root)).toBeUndefined();
  });

  it("AGENT.md, .intentignore, intent_map.md and active_intents.yaml linked out (dangling too): nothing written there", async () => {
    symlinkSync(join(outside, "notes.md"), join(root, ".orchestration/AGENT.md")); // dangling
    symlinkSync(join(outside, "sentinel.txt"), join(root, ".intentignore"));
    symlinkSync(join(outside, "map.md"), join(root, ".orchestration/intent_map.md"));
    const before = snapshot(outside);
    expect(noteLesson(root, { path: "docs/x.md", intentId: "INT-001", text: "denied" })).toBe(false);
    expect(() => addToIntentIgnore(root, "docs/x.md")).toThrow(
      /^\.intentignore was not read: \.intentignore is a symbolic link to .*sentinel\.txt, outside the workspace/,
    );
    const ledger = { filesFor: () => [], editCount: () => 0, lastChange: () => undefined, recordCount: 0 };
    expect(() => regenerateIntentMap(root, loadIntents(INTENTS).catalogue, ledger)).toThrow(UnsafeWriteError);
    rmSync(join(root, ".orchestration/active_intents.yaml"));
    writeFileSync(join(outside, "intents.yaml"), INTENTS);
    symlinkSync(join(outside, "intents.yaml"), join(root, ".orchestration/active_intents.yaml"));
    const r = await modifyIntentsFile(root, INTENTS, (t) => transition(t, "INT-001", "COMPLETE", new Date()));
    expect(r).toMatchObject({ ok: false });
    expect(!r.ok && r.reason).toMatch(/leads outside the workspace/);
    expect(snapshot(outside)).toEqual({ ...before, "intents.yaml": INTENTS });
  });

  it("a ledgerPath whose folder is a link out of the workspace: the append is refused", async () => {
    symlinkSync(outside, join(root, "trace"));
    const before = snapshot(outside);
    const record = buildRecord({
      path: "src/api/a.ts",
      content: "x\n",
      ranges: [],
      contributor: { type: "human" },
      sessionId: "s",
      toolVersion: "0",
      mutationClass: "FILE_CREATION",
      preHash: null,
      scope: "PASS",
      intentId: "INT-001",
      revision: undefined,
    });
    await expect(appendWorkspaceRecord(root, "trace/ledger.jsonl", record)).rejects.toThrow(/not written: trace\/ledger\.jsonl leads outside the workspace/);
    expect(snapshot(outside)).toEqual(before);
  });

  it("lessons: an agent's path with line breaks stays one quoted line, and cannot end the marker comment", () => {
    const path = "src/x.ts\n\nrm -rf ~ `boom` --> <script>";
    expect(noteLesson(root, { path, intentId: "INT-001", text: `denied: ${path} is outside\r\nrun this` })).toBe(true);
    const text = readFileSync(join(root, ".orchestration/AGENT.md"), "utf8");
    const lines = text.split("\n");
    expect(lines.filter((l) => l.startsWith("- "))).toHaveLength(1);
    expect(lines.some((l) => l.startsWith("rm -rf") || l === "run this")).toBe(false);
    const note = lines.find((l) => l.startsWith("- "))!;
    expect(note).toContain("``src/x.ts\\n\\nrm -rf ~ `boom` --> <script>``"); // a code span its backtick cannot close
    expect(note).toContain("denied: src/x.ts\\n\\nrm -rf ~ `boom` --&gt; &lt;script&gt; is outside\\r\\nrun this");
    expect(note.match(/<!--/g)).toHaveLength(1);
    expect(note.endsWith("%0A%0Arm%20-rf%20~%20%60boom%60%20--%3E%20%3Cscript%3E -->")).toBe(true);
    expect(noteLesson(root, { path, intentId: "INT-001", text: "again" })).toBe(false); // found again by its marker
  });

  it("reads only regular files: a FIFO is refused at once, not waited on", () => {
    execFileSync("mkfifo", [join(root, "src/api/pipe.ts")]);
    expect(() => readOptional(join(root, "src/api/pipe.ts"))).toThrow(/is a FIFO \(named pipe\), not a regular file/);
    expect(() => readOptional("/dev/zero")).toThrow(/is a device, not a regular file/);
  });
});

describe("writeNamedFile: a file the person named on the command line", () => {
  let dir: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "intent-lsp-named-")));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("creates a new file or replaces a regular one whole, keeping its mode, and leaves no temporary file", () => {
    writeNamedFile(join(dir, "new.txt"), "one\n");
    expect(readFileSync(join(dir, "new.txt"), "utf8")).toBe("one\n");
    chmodSync(join(dir, "new.txt"), 0o640);
    writeNamedFile(join(dir, "new.txt"), [Buffer.from("two"), Buffer.from("\n")], { durable: false });
    expect(readFileSync(join(dir, "new.txt"), "utf8")).toBe("two\n");
    expect(statSync(join(dir, "new.txt")).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(["new.txt"]);
  });

  it("writes through a symbolic link to its target and keeps the link", () => {
    writeFileSync(join(dir, "target.txt"), "old");
    symlinkSync(join(dir, "target.txt"), join(dir, "link.txt"));
    writeNamedFile(join(dir, "link.txt"), "new");
    expect(lstatSync(join(dir, "link.txt")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, "target.txt"), "utf8")).toBe("new");
  });

  it("refuses a folder, a dangling link, a missing folder and a relative path, writing nothing", () => {
    mkdirSync(join(dir, "sub"));
    expect(() => writeNamedFile(join(dir, "sub"), "x")).toThrow(`${join(dir, "sub")} is a directory, not a regular file; nothing was written`);
    symlinkSync(join(dir, "gone"), join(dir, "dangling"));
    expect(() => writeNamedFile(join(dir, "dangling"), "x")).toThrow(/dangling symbolic link/);
    expect(() => writeNamedFile(join(dir, "none", "x.txt"), "x")).toThrow(`the folder ${join(dir, "none")} does not exist`);
    writeFileSync(join(dir, "file"), "keep");
    expect(() => writeNamedFile(join(dir, "file", "x.txt"), "x")).toThrow(`${join(dir, "file")} is not a folder`);
    expect(() => writeNamedFile("relative.txt", "x")).toThrow(/not an absolute path/);
    expect(readdirSync(dir).sort()).toEqual(["dangling", "file", "sub"]);
    expect(readdirSync(join(dir, "sub"))).toEqual([]);
  });
});
