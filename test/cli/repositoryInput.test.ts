import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LspClient } from "../support/lspClient";
import { ensureBuilt } from "../support/builtDist";
import { startInProcess } from "../support/inProcessServer";
import { CLI_JS, runCliInProcess } from "../support/cliRunner";
import { git } from "../support/gitRepository";
import { withinBound } from "../support/withinBound";

/**
 * Every file intent-lsp reads or writes inside a repository, committed as something hostile — a symbolic link
 * inside the workspace, out of it, dangling, in a loop; a FIFO; a folder — against each door that touches it.
 * For every case: nothing written outside the workspace (the outside tree's listing, contents and times are
 * compared), no byte of an outside file in any output or written file (each outside file holds a secret
 * marker), no command of the repository's run (a planted command would create a sentinel file), a clear
 * error (a non-zero exit or a message naming the path) for every unsafe kind, and every process answering
 * within a bound (a hang is a failure, not a wait). The table below is the whole suite.
 */

const SECRET = "SECRET-7f1c-outside-content";
/** A bound no answer needs on a loaded machine; past it the process is killed and the case fails as hung. */
const HANG_MS = 60_000;
/** `intent doctor` probes up to nine hooks, each its own process: it gets nine bounds. */
const DOCTOR_HANG_MS = 9 * HANG_MS;
const AGENTS = ["claude-code", "cursor", "codex", "gemini", "copilot", "windsurf", "cline", "droid"] as const;

type Door = "init" | "doctor" | "context" | "hook-pre" | "hook-write" | "hook-deny" | "select" | "map" | "server";
type Kind = "link-in" | "link-out" | "dangling" | "loop" | "fifo" | "dir";

interface Row {
  /** The path planted, relative to the workspace root. */
  path: string;
  /** Whether intent-lsp expects a folder there. */
  folder?: boolean;
  doors: Door[];
  /**
   * Doors that go on without the file, by design, and say nothing: a cache folder that cannot be used is
   * only slower; a session file that cannot be read counts as absent. Still checked for every other fact.
   */
  quiet?: Door[];
}

const HOOK_FILES: Row[] = [
  { path: ".claude", folder: true, doors: ["init", "doctor"] },
  { path: ".claude/settings.json", doors: ["init", "doctor"] },
  { path: ".cursor/hooks.json", doors: ["init", "doctor"] },
  { path: ".codex/hooks.json", doors: ["init", "doctor"] },
  { path: ".gemini/settings.json", doors: ["init", "doctor"] },
  { path: ".github/hooks", folder: true, doors: ["init"] },
  { path: ".github/hooks/intent-lsp.json", doors: ["init", "doctor"] },
  { path: ".windsurf/hooks.json", doors: ["init", "doctor"] },
  { path: ".clinerules", folder: true, doors: ["init", "doctor"] },
  { path: ".clinerules/hooks/PreToolUse", doors: ["init", "doctor"] },
  { path: ".factory/hooks.json", doors: ["init", "doctor"] },
];

const ROWS: Row[] = [
  { path: ".orchestration/active_intents.yaml", doors: ["init", "doctor", "context", "hook-pre", "select", "map", "server"] },
  { path: ".orchestration/config.jsonc", doors: ["context", "hook-pre", "map", "server"] },
  { path: ".intentignore", doors: ["context", "hook-pre", "server"] },
  { path: ".orchestration/.intentignore", doors: ["context", "hook-pre"] },
  { path: ".orchestration/agent_trace.jsonl", doors: ["doctor", "hook-write", "map", "context", "server"] },
  { path: ".agent-trace/traces.jsonl", doors: ["map", "context"] },
  { path: ".orchestration/.sessions", folder: true, doors: ["select", "hook-pre", "hook-write", "server"] },
  { path: ".orchestration/.sessions/workspace.json", doors: ["select"] },
  { path: ".orchestration/.sessions/pending", folder: true, doors: ["hook-pre", "hook-write"] },
  { path: ".orchestration/.cache", folder: true, doors: ["map", "hook-pre", "server"], quiet: ["map", "hook-pre", "server"] },
  { path: ".orchestration/.cache/catalogue.json", doors: ["hook-pre", "map"], quiet: ["hook-pre", "map"] },
  { path: ".orchestration/.cache/.gitignore", doors: ["map"], quiet: ["map"] },
  // the lesson note is a courtesy: when AGENT.md cannot be written the denial is answered without it
  { path: ".orchestration/AGENT.md", doors: ["hook-deny"], quiet: ["hook-deny"] },
  { path: ".orchestration/intent_map.md", doors: ["map"] },
  { path: ".gitignore", doors: ["init", "doctor"] },
  { path: ".gitattributes", doors: ["init", "doctor"] },
  { path: "docs/spec.md", doors: ["context", "server"] },
  ...HOOK_FILES,
];

const KINDS: Kind[] = ["link-in", "link-out", "dangling", "loop", "fifo", "dir"];
const UNSAFE: ReadonlySet<Kind> = new Set(["link-out", "dangling", "loop", "fifo", "dir"]);

const INTENTS = `active_intents:
  - id: INT-001
    name: Build the API
    status: IN_PROGRESS
    owned_scope: ["src/**"]
    related_specs: [{ type: doc, ref: docs/spec.md }]
`;

/** What an outside file holds: text that would surface in an answer, a rule or a command if it were read. */
function bait(rel: string, sentinel: string): string {
  const command = (agent: string) => `touch ${sentinel}; : intent hook ${agent} ${SECRET}`;
  if (rel.endsWith(".yaml")) return INTENTS.replace("Build the API", SECRET).replace('["src/**"]', '["**"]');
  if (rel.endsWith("PreToolUse")) return `#!/bin/sh\ntouch ${sentinel}\nexec intent hook cline # ${SECRET}\n`;
  if (rel.endsWith("workspace.json")) return JSON.stringify({ intent: SECRET, selectedAt: new Date().toISOString(), by: SECRET });
  if (rel.endsWith(".jsonl")) return `{"${SECRET}": 1}\n`;
  if (/\.jsonc?$/.test(rel))
    return JSON.stringify({ version: 1, ledgerPath: SECRET, hooks: Object.fromEntries(AGENTS.map((a) => [a, [{ command: command(a), bash: command(a) }]])) });
  return `${SECRET}\n`;
}

/** The outside tree, as listing, kinds, contents and times: what "nothing written outside" is checked against. */
function outsideState(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      const id = `${relative(dir, p)} ${st.mode} ${st.mtimeMs}`;
      if (st.isDirectory()) {
        out.push(id);
        walk(p);
      } else out.push(`${id} ${st.isFile() ? readFileSync(p, "utf8") : st.isSymbolicLink() ? readlinkSync(p) : "?"}`);
    }
  };
  walk(dir);
  return out;
}

/** Every regular file intent-lsp could have written in the workspace (links and FIFOs are not followed). */
function writtenTexts(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      if (name === ".git") continue;
      const p = join(d, name);
      const st = lstatSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) out.push(`${relative(root, p)}: ${readFileSync(p, "utf8")}`);
    }
  };
  walk(root);
  return out;
}

interface Run {
  door: string;
  status: number | null;
  output: string;
  hung: boolean;
}

/**
 * A command in the test process (runCliInProcess), bounded like a process, where what the command does is
 * the subject. A FIFO can stop an open() for good, which no timer in this thread ends: those cases run under
 * a FifoWatchdog. The `intent hook` that doctor probes runs in this process too.
 */
async function inProcess(args: string[], cwd: string, input = "", env: NodeJS.ProcessEnv = {}, bound = HANG_MS): Promise<Run> {
  const r = await withinBound(runCliInProcess(args, { cwd, input, env: { INTENT_LSP_MODEL: "test-model", ...env }, intentInProcess: true }), bound);
  const door = args.slice(0, 2).join(" ");
  return r === "hung" ? { door, status: null, output: "", hung: true } : { door, status: r.status, output: r.stdout + r.stderr, hung: false };
}

function spawnedCli(args: string[], cwd: string, input = "", env: NodeJS.ProcessEnv = {}, bound = HANG_MS): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_JS, ...args], {
      cwd,
      env: { ...process.env, INTENT_LSP_MODEL: "test-model", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill("SIGKILL");
    }, bound);
    child.stdout.on("data", (b) => (output += b));
    child.stderr.on("data", (b) => (output += b));
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ door: args.slice(0, 2).join(" "), status, output, hung });
    });
  });
}

/**
 * The bound of an in-process door whose planted file is a FIFO. An open() of a FIFO waits for the other end
 * and blocks this thread (or a thread of libuv's pool) past any timer of this thread: a watchdog thread, once
 * the bound has passed, opens the FIFO for reading and writing without waiting and closes it (again every
 * 100 ms while the door runs), which lets a waiting open() go on and a read end. The door then finishes, and
 * its case fails as hung, as a process killed at its bound would.
 */
class FifoWatchdog {
  private static readonly SLOTS = 4096;
  private readonly fired = new Int32Array(new SharedArrayBuffer(4 * FifoWatchdog.SLOTS));
  private worker: Worker | undefined;
  private slots = 0;

  /** Watches `fifo` from now on; the returned function stops watching and says whether the bound passed. */
  arm(fifo: string, bound: number): () => boolean {
    const slot = this.slots++;
    if (slot >= FifoWatchdog.SLOTS) throw new Error(`FifoWatchdog: more than ${FifoWatchdog.SLOTS} doors watched`);
    this.worker ??= this.start();
    this.worker.postMessage({ slot, fifo, bound });
    return () => {
      this.worker?.postMessage({ stop: slot });
      return Atomics.load(this.fired, slot) === 1;
    };
  }

  stop(): Promise<number> | undefined {
    return this.worker?.terminate();
  }

  private start(): Worker {
    const worker = new Worker(
      `const { parentPort, workerData } = require("node:worker_threads");
      const { closeSync, openSync, constants } = require("node:fs");
      const fired = new Int32Array(workerData);
      const timers = new Map();
      parentPort.on("message", (m) => {
        if (m.stop !== undefined) {
          clearTimeout(timers.get(m.stop));
          clearInterval(timers.get(m.stop));
          timers.delete(m.stop);
          return;
        }
        timers.set(m.slot, setTimeout(() => {
          Atomics.store(fired, m.slot, 1);
          const release = () => {
            try {
              closeSync(openSync(m.fifo, constants.O_RDWR | constants.O_NONBLOCK));
            } catch {}
          };
          release();
          timers.set(m.slot, setInterval(release, 100));
        }, m.bound));
      });`,
      { eval: true, workerData: this.fired.buffer },
    );
    worker.unref();
    return worker;
  }
}

const watchdog = new FifoWatchdog();

function claude(root: string, event: string, tool: string, input: Record<string, unknown>, id: string): string {
  return JSON.stringify({
    session_id: "repo-input",
    transcript_path: "",
    cwd: root,
    permission_mode: "default",
    hook_event_name: event,
    tool_name: tool,
    tool_input: input,
    tool_use_id: id,
    ...(event === "PostToolUse" ? { tool_response: {} } : {}),
  });
}

/**
 * An editor opening the workspace: a document opened, edited and saved (a ledger record, the session file,
 * the cache), and `intent.showContext`. Its output is everything the editor would show: diagnostics, the
 * log, the context, the server's stderr. The server keeps serving, so a problem is told in its log. The
 * server runs in the test process (startInProcess), but for `spawned` (the FIFO smoke cases).
 */
async function serverDoor(root: string, spawned: boolean): Promise<Run> {
  let output = "";
  let client: LspClient | undefined;
  const session = (async () => {
    client = spawned ? await LspClient.start({ root, env: { INTENT_LSP_CODE_CACHE: "off" } }) : await startInProcess({ root });
    await client.open("src/a.ts", "typescript");
    await client.setLine("src/a.ts", 0, "export const a = 3;");
    await client.waitForPublishOfCurrentVersion("src/a.ts");
    writeFileSync(join(root, "src/a.ts"), "export const a = 3;\n");
    await client.save("src/a.ts");
    const context = await client.executeCommand("intent.showContext", { id: "INT-001" }).catch((e: Error) => e.message);
    output += JSON.stringify(context) + JSON.stringify(client.diagnosticsFor("src/a.ts"));
  })();
  const hung =
    (await withinBound(
      session.catch((e: Error) => {
        output += `error: ${e.message}`;
      }),
      HANG_MS,
    )) === "hung";
  if (client) {
    output += client.logs.join("\n") + client.stderr;
    await client.stop();
  }
  return { door: "server", status: 0, output, hung };
}

/** `spawned`: every command and the server in its own process (the FIFO smoke cases, see SPAWNED); else in process. */
async function runDoor(door: Door, root: string, bin: string, spawned: boolean): Promise<Run[]> {
  const cli = spawned ? spawnedCli : inProcess;
  switch (door) {
    case "server":
      return [await serverDoor(root, spawned)];
    case "init":
      return [await cli(["init", ...AGENTS.flatMap((a) => ["--agent", a])], root)];
    case "doctor":
      // `intent` on PATH, so that a recognised hook command really runs (in process with doctor, see inProcess)
      return [await (spawned ? spawnedCli : inProcess)(["doctor"], root, "", { PATH: `${bin}:${process.env["PATH"]}` }, DOCTOR_HANG_MS)];
    case "context":
      return [await cli(["context", "INT-001"], root)];
    case "select":
      return [await cli(["select", "INT-001"], root)];
    case "map":
      return [await cli(["map"], root)];
    case "hook-pre":
      return [await cli(["hook", "claude-code"], root, claude(root, "PreToolUse", "Bash", { command: "echo hi" }, "bash-1"))];
    case "hook-deny":
      return [
        await cli(["hook", "claude-code"], root, claude(root, "PreToolUse", "Write", { file_path: join(root, "docs/out.md"), content: "x\n" }, "deny-1")),
      ];
    case "hook-write": {
      const file = join(root, "src/a.ts");
      const pre = await cli(
        ["hook", "claude-code"],
        root,
        claude(root, "PreToolUse", "Write", { file_path: file, content: "export const a = 2;\n" }, "write-1"),
      );
      writeFileSync(file, "export const a = 2;\n");
      const post = await cli(
        ["hook", "claude-code"],
        root,
        claude(root, "PostToolUse", "Write", { file_path: file, content: "export const a = 2;\n" }, "write-1"),
      );
      const bashPre = await cli(["hook", "claude-code"], root, claude(root, "PreToolUse", "Bash", { command: "touch src/b.ts" }, "bash-2"));
      writeFileSync(join(root, "src/b.ts"), "");
      const bashPost = await cli(["hook", "claude-code"], root, claude(root, "PostToolUse", "Bash", { command: "touch src/b.ts" }, "bash-2"));
      return [pre, post, bashPre, bashPost];
    }
  }
}

let template: string | undefined;

/** The workspace every case starts from, committed once: each case copies it (git is not the subject here). */
function committedWorkspace(): string {
  if (template) return template;
  const root = mkdtempSync(join(tmpdir(), "intent-repo-input-template-"));
  for (const d of [".orchestration/.sessions", "src", "docs"]) mkdirSync(join(root, d), { recursive: true });
  writeFileSync(join(root, ".orchestration/active_intents.yaml"), INTENTS);
  writeFileSync(join(root, ".orchestration/config.jsonc"), "{}\n");
  writeFileSync(join(root, ".orchestration/agent_trace.jsonl"), "");
  writeFileSync(join(root, "src/a.ts"), "export const a = 1;\n");
  writeFileSync(join(root, "docs/spec.md"), "# The API spec\n");
  writeFileSync(join(root, ".orchestration/.sessions/workspace.json"), JSON.stringify({ intent: "INT-001", selectedAt: new Date().toISOString(), by: "test" }));
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "initial");
  template = root;
  return root;
}

/** A fresh repository with the path planted as `kind`; the outside tree beside it holds the bait. */
function fixture(row: Row, kind: Kind): { base: string; root: string; outside: string; sentinel: string; bin: string } {
  const base = mkdtempSync(join(tmpdir(), "intent-repo-input-"));
  const root = join(base, "ws");
  const outside = join(base, "outside");
  const sentinel = join(base, "command-ran");
  const bin = join(base, "bin");
  for (const d of [outside, bin]) mkdirSync(d, { recursive: true });
  writeFileSync(join(bin, "intent"), `#!/bin/sh\nexec "${process.execPath}" "${CLI_JS}" "$@"\n`, { mode: 0o755 });
  cpSync(committedWorkspace(), root, { recursive: true });

  const target = join(root, row.path);
  const original = existsSync(target) && lstatSync(target).isFile() ? readFileSync(target, "utf8") : "";
  rmSync(target, { recursive: true, force: true });
  mkdirSync(dirname(target), { recursive: true });
  const flat = row.path.replace(/[/.]/g, "_");
  const baitInto = (p: string) => {
    if (row.folder) {
      mkdirSync(p, { recursive: true });
      // every file the doors would look for below the folder, baited
      for (const r of ROWS)
        if (r.path.startsWith(`${row.path}/`) && !r.folder) {
          mkdirSync(dirname(join(p, r.path.slice(row.path.length + 1))), { recursive: true });
          writeFileSync(join(p, r.path.slice(row.path.length + 1)), bait(r.path, sentinel), { mode: 0o755 });
        }
      writeFileSync(join(p, "secret.txt"), `${SECRET}\n`);
    } else writeFileSync(p, bait(row.path, sentinel), { mode: 0o755 });
  };
  switch (kind) {
    case "link-in": {
      const inside = join(root, "linked", flat);
      mkdirSync(dirname(inside), { recursive: true });
      if (row.folder) mkdirSync(inside);
      else writeFileSync(inside, original); // the file as it was, moved behind a link inside the workspace
      symlinkSync(relative(dirname(target), inside), target);
      break;
    }
    case "link-out":
      baitInto(join(outside, flat));
      symlinkSync(join(outside, flat), target);
      break;
    case "dangling":
      symlinkSync(join(outside, `missing-${flat}`), target);
      break;
    case "loop":
      symlinkSync(`${basename(target)}.loop`, target);
      symlinkSync(basename(target), `${target}.loop`);
      break;
    case "fifo":
      execFileSync("mkfifo", [target]);
      break;
    case "dir":
      mkdirSync(target);
      writeFileSync(join(outside, "unrelated.txt"), `${SECRET}\n`);
      break;
  }
  if (!readdirSync(outside).length) writeFileSync(join(outside, "unrelated.txt"), `${SECRET}\n`);
  return { base, root, outside, sentinel, bin };
}

interface Case {
  row: Row;
  kind: Kind;
}

/**
 * The rows whose FIFO case runs every door as a user, an agent and an editor run it (dist/cli.js and
 * dist/server.js, each in its own process, killed at its bound; doctor probing the hooks by running them):
 * the smoke set that keeps the in-process doors honest about the processes. Between them they reach every
 * door, doctor's probes included (a hook file planted as a FIFO leaves the intents readable, so doctor
 * probes all nine hooks). Every other case runs its doors in this process.
 */
const SPAWNED: ReadonlySet<string> = new Set([
  ".orchestration/active_intents.yaml",
  ".orchestration/agent_trace.jsonl",
  ".orchestration/AGENT.md",
  ".claude/settings.json",
]);

const CASES: Case[] = ROWS.flatMap((row) => KINDS.filter((k) => !(row.folder && k === "dir")).map((kind) => ({ row, kind })));
const DOORS = new Set(ROWS.flatMap((r) => r.doors));
let runs = 0;

beforeAll(ensureBuilt);
afterAll(async () => {
  await watchdog.stop();
  if (template) rmSync(template, { recursive: true, force: true });
  console.log(
    `repository-controlled input: ${CASES.length} cases over ${ROWS.length} paths and ${KINDS.length} kinds, ${DOORS.size} doors (${[...DOORS].join(", ")}), ${runs} runs`,
  );
});

/** Runs `work` over `items`, `n` at a time (two cores, shared: not more). */
async function pool<T, R>(items: readonly T[], n: number, work: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]!);
      }
    }),
  );
  return out;
}

async function runCase(c: Case): Promise<string[]> {
  const f = fixture(c.row, c.kind);
  const failures: string[] = [];
  try {
    const before = outsideState(f.outside);
    const spawned = c.kind === "fifo" && SPAWNED.has(c.row.path);
    for (const door of c.row.doors) {
      const watching = c.kind === "fifo" && !spawned ? watchdog.arm(join(f.root, c.row.path), door === "doctor" ? DOCTOR_HANG_MS : HANG_MS) : undefined;
      const results = await runDoor(door, f.root, f.bin, spawned);
      if (watching?.()) for (const r of results) r.hung = true;
      runs += results.length;
      const label = `${c.row.path} as ${c.kind}, ${door}`;
      for (const r of results) {
        if (r.hung) failures.push(`${label}: \`intent ${r.door}\` did not answer within its bound (killed)`);
        if (r.output.includes(SECRET)) failures.push(`${label}: outside content in the output of \`intent ${r.door}\`: ${r.output}`);
      }
      if (UNSAFE.has(c.kind) && !(c.row.quiet ?? []).includes(door)) {
        // a hook's denial exits non-zero whatever its reason: its answer must name the path
        const hook = door.startsWith("hook") || door === "server";
        const named = results.some(
          (r) => (!hook && r.status !== 0 && r.status !== null) || r.output.includes(c.row.path) || /not read|did not write|cannot be written/.test(r.output),
        );
        if (!named) failures.push(`${label}: no error and no message naming ${c.row.path}: ${results.map((r) => `[${r.status}] ${r.output}`).join(" | ")}`);
      }
    }
    const after = outsideState(f.outside);
    if (JSON.stringify(after) !== JSON.stringify(before))
      failures.push(`${c.row.path} as ${c.kind}: the outside tree changed:\n  before ${before.join("\n         ")}\n  after  ${after.join("\n         ")}`);
    if (existsSync(f.sentinel)) failures.push(`${c.row.path} as ${c.kind}: a command of the repository's ran`);
    const leaked = writtenTexts(f.root).filter((t) => t.includes(SECRET));
    if (leaked.length) failures.push(`${c.row.path} as ${c.kind}: outside content in written files: ${leaked.join(" | ")}`);
  } finally {
    rmSync(f.base, { recursive: true, force: true });
  }
  return failures;
}

describe("repository-controlled input: every file intent-lsp touches, planted hostile, against every door", () => {
  it(
    "writes nothing outside, shows nothing from outside, runs nothing, says what is wrong, never hangs",
    async () => {
      const only = process.env["REPO_INPUT_ONLY"]; // a path, to run one row while debugging
      const failures = (await pool(only ? CASES.filter((c) => c.row.path === only) : CASES, 3, runCase)).flat();
      expect(failures).toEqual([]);
    },
    30 * 60_000,
  );
});
