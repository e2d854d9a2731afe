import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TempWorkspace } from "../support/workspace";
import { ensureBuilt } from "../support/builtDist";
import { CLI_JS, runCliInProcess } from "../support/cliRunner";
import { claudePayload, cursorPayload } from "../support/hookPayloads";
import { withinBound } from "../support/withinBound";

/**
 * The malformed-input corpus, through the doors people and agents use: `intent status` and `intent
 * verify` for the files, `intent hook` for payloads and paths. Every input gets a clear diagnostic or
 * error (file:line:col, or one line on stderr), the gate answers every call within a bound, and a
 * sentinel folder outside the workspace is unchanged at the end.
 */

const HANG_MS = 30_000;
const INTENTS = ".orchestration/active_intents.yaml";
const CONFIG = ".orchestration/config.jsonc";
const LEDGER = ".orchestration/agent_trace.jsonl";

let tried = 0;
let outside: string;
let sentinel: string[];

function snapshot(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .map(
      (e) =>
        `${join(e.parentPath, e.name).slice(dir.length)}:${e.isFile() ? readFileSync(join(e.parentPath, e.name), "utf8") : e.isDirectory() ? "dir" : "other"}`,
    )
    .sort();
}

/** One turn of the event loop between synchronous CLI runs, so the test worker keeps answering vitest. */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

function cli(ws: TempWorkspace, args: string[], input = "") {
  const r = spawnSync(process.execPath, [CLI_JS, ...args], { cwd: ws.root, input, encoding: "utf8", timeout: HANG_MS, maxBuffer: 64 * 1024 * 1024 });
  expect(r.signal, `intent ${args.join(" ")} hung`).toBeNull();
  return { status: r.status!, stdout: r.stdout, stderr: r.stderr };
}

/**
 * `intent status` and `intent verify` and `intent blame` in process: what they report is the subject here. The
 * hook payload corpus keeps the gate's process and its bound (above): an agent's gate answers in bounded time,
 * whatever the call.
 */
async function report(ws: TempWorkspace, args: string[]) {
  return runCliInProcess(args, { cwd: ws.root });
}

/**
 * The gate's answer to a Write under src/api (owned by the in-progress INT-001) with these rule files. The
 * rule files are the input here and `intent status` has just read the same ones in this process: the gate
 * runs in process too, bounded like a process for what waits; the first input of each table (`spawned`)
 * asks the gate's process.
 */
async function gate(ws: TempWorkspace, spawned = false): Promise<{ kind: string; reason: string }> {
  const input = JSON.stringify(claudePayload(ws, "PreToolUse", { tool_name: "Write", tool_input: { file_path: ws.path("src/api/corpus.ts"), content: "x" } }));
  const r = spawned ? cli(ws, ["hook", "claude-code"], input) : await withinBound(runCliInProcess(["hook", "claude-code"], { cwd: ws.root, input }), HANG_MS);
  if (r === "hung") throw new Error(`the gate did not answer within ${HANG_MS} ms`);
  expect(r.status).toBe(0);
  const out = JSON.parse(r.stdout).hookSpecificOutput ?? {};
  return { kind: out.permissionDecision ?? "none", reason: out.permissionDecisionReason ?? "" };
}

beforeAll(async () => {
  await ensureBuilt();
  outside = mkdtempSync(join(tmpdir(), "intent-lsp-corpus-outside-"));
  writeFileSync(join(outside, "sentinel.txt"), "keep me\n");
  sentinel = snapshot(outside);
});
afterAll(() => {
  console.log(`malformed-input corpus: ${tried} inputs tried`);
  expect(snapshot(outside)).toEqual(sentinel);
  rmSync(outside, { recursive: true, force: true });
});

const ONE = `active_intents:\n  - id: INT-001\n    name: Build Weather API\n    status: IN_PROGRESS\n    owned_scope: ["src/api/**"]\n`;

describe("active_intents.yaml corpus: each input a problem at a place, the gate failing closed on errors", () => {
  const errors: [string, string | Buffer, RegExp][] = [
    ["a syntax error", "active_intents:\n  - id: INT-001\n   name: x\n  bad: [\n", /YAML syntax error/],
    ["tabs for indentation", "active_intents:\n\t- id: INT-001\n", /Tabs are not allowed/],
    [
      "an alias bomb",
      `a: &a [x,x,x,x,x,x,x,x,x]\n${["b", "c", "d", "e", "f", "g", "h"].map((k, i) => `${k}: &${k} [${Array(9).fill(`*${"abcdefg"[i]}`).join(",")}]`).join("\n")}\nactive_intents: *h\n`,
      /`active_intents` must be a list of intents/,
    ],
    ["40 KB of flow brackets", `active_intents: ${"[".repeat(20_000)}${"]".repeat(20_000)}\n`, /nested more than 64 levels deep here/],
    ["compact nested sequences", `active_intents:\n  ${"- ".repeat(20_000)}x\n`, /nested more than 64 levels deep here/],
    ["wrong types", "active_intents:\n  - id: 5\n    name: [1]\n    status: {a: 1}\n    owned_scope: 7\n", /Bad intent id "5"/],
    ["a list at the top", "- 1\n- 2\n", /Expected a mapping with an `active_intents:` list/],
    ["a scalar at the top", "just text\n", /Expected a mapping/],
    ["no list", "intentions: []\n", /Missing `active_intents:`/],
    ["a duplicate key in an intent", `${ONE}    status: COMPLETE\n`, /`status` is given twice in this intent \(first on line 4\)/],
    ["the list given twice", `${ONE}active_intents: []\n`, /The intents are listed twice/],
    ["a duplicate id", `${ONE}${ONE.replace("active_intents:\n", "")}`, /Duplicate intent id INT-001/],
    ["a NUL in an id", ONE.replace("INT-001", "INT-001\u0000"), /Bad intent id/],
    ["an absolute glob", ONE.replace('"src/api/**"', '"/etc/**"'), /is absolute; scopes are workspace-relative/],
    ["a glob leaving the workspace", ONE.replace('"src/api/**"', '"../**"'), /leaves the workspace/],
    ["a glob with a line break", ONE.replace('"src/api/**"', '"src/api/**\\nx"'), /control character/],
    ["a costly glob", ONE.replace('"src/api/**"', `"${"*a".repeat(25)}b"`), /wildcards in one path segment/],
    ["a brace range of a million", ONE.replace('"src/api/**"', '"src/{1..1000000}/**"'), /expands to 1000000 alternatives/],
    ["a 1 MB line", `${ONE}x: ${"[".repeat(1)}${"y".repeat(1024 * 1024)}\n`, /YAML syntax error/],
    ["an empty file", "", /Expected a mapping with an `active_intents:` list/],
    ["comments only", "# nothing yet\n", /Expected a mapping with an `active_intents:` list/],
  ];
  const warnings: [string, string | Buffer, RegExp][] = [
    [
      "invalid UTF-8",
      Buffer.concat([Buffer.from(ONE), Buffer.from('    tags: ["'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"]\n')]),
      /U\+FFFD replacement characters/,
    ],
    ["an unknown field", `${ONE}    colour: blue\n`, /Unknown field `colour`/],
  ];
  const clean: [string, string | Buffer][] = [
    ["a byte-order mark", `\uFEFF${ONE}`],
    ["lone-CR line breaks", ONE.replace(/\n/g, "\r")],
    ["CRLF line breaks", ONE.replace(/\n/g, "\r\n")],
    ["10 MB (a long description)", `${ONE}    description: |\n${`      ${"lorem ipsum dolor sit amet ".repeat(4)}\n`.repeat(92_000)}`],
    ["an empty list", "active_intents: []\n"],
  ];

  it("errors", async () => {
    const ws = new TempWorkspace();
    try {
      for (const [i, [what, text, message]] of errors.entries()) {
        await tick();
        tried++;
        ws.write(INTENTS, text as string);
        const status = await report(ws, ["status", "--json"]);
        expect(status.status, `${what}: ${status.stderr}`).toBe(0);
        const problems = JSON.parse(status.stdout).problems as { file: string; line: number; column: number; severity: string; message: string }[];
        const found = problems.find((p) => p.severity === "error" && message.test(p.message));
        expect(found, `${what}: ${JSON.stringify(problems).slice(0, 500)}`).toBeDefined();
        expect(found!.line).toBeGreaterThanOrEqual(1);
        const g = await gate(ws, i === 0);
        expect([what, g.kind]).toEqual([what, "deny"]);
        expect(g.reason).toMatch(/^\[intent-lsp: intents-file-broken\] \.orchestration\/active_intents\.yaml:\d+:\d+: /);
      }
    } finally {
      ws.dispose();
    }
  }, 240_000);

  it("warnings and well-formed oddities", async () => {
    const ws = new TempWorkspace();
    try {
      for (const [i, [what, text, message]] of warnings.entries()) {
        await tick();
        tried++;
        ws.write(INTENTS, "");
        writeFileSync(ws.path(INTENTS), text);
        const problems = JSON.parse((await report(ws, ["status", "--json"])).stdout).problems as { severity: string; message: string }[];
        expect(
          problems.some((p) => p.severity === "warning" && message.test(p.message)),
          `${what}: ${JSON.stringify(problems)}`,
        ).toBe(true);
        expect((await gate(ws, i === 0)).kind, what).toBe("allow");
      }
      for (const [i, [what, text]] of clean.entries()) {
        await tick();
        tried++;
        writeFileSync(ws.path(INTENTS), text);
        const r = JSON.parse((await report(ws, ["status", "--json"])).stdout);
        expect(r.problems, what).toEqual([]);
        expect((await gate(ws, i === 0)).kind, what).toBe(r.intents.length ? "allow" : "deny"); // an empty catalogue owns nothing
      }
    } finally {
      ws.dispose();
    }
  }, 240_000);
});

describe("config.jsonc corpus: settings-invalid at the spot, the gate failing closed", () => {
  const cases: [string, string, RegExp][] = [
    ["a syntax error", `{ "autoSelect": true,, }`, /syntax error: a property name was expected|syntax error/],
    ["an unterminated comment", `{ "autoSelect": true } /* x`, /unterminated comment/],
    ["100 KB of brackets", `{"exempt": ${"[".repeat(50_000)}${"]".repeat(50_000)}}`, /nested more than 64 levels deep here/],
    ["wrong types", `{ "autoSelect": "yes", "exempt": [1, 2], "contributor": 5 }`, /"autoSelect" must be true or false/],
    ["a costly exempt pattern", `{ "exempt": ["${"a*".repeat(20_000)}"] }`, /is 40000 characters long/],
    ["a ledgerPath leaving the workspace", `{ "ledgerPath": "../../x.jsonl" }`, /"ledgerPath" must be a workspace-relative path/],
    ["an absolute ledgerPath", `{ "ledgerPath": "/tmp/x.jsonl" }`, /"ledgerPath" must be a workspace-relative path/],
    ["a ledgerPath with a line break", `{ "ledgerPath": "a\\nb.jsonl" }`, /"ledgerPath" must be a workspace-relative path/],
    ["not an object", `[1, 2, 3]`, /must hold one JSON object/],
    ["10 MB of string", `{ "x": "${"y".repeat(10_000_000)}" }`, /unknown setting "x"/],
  ];
  it("each", async () => {
    const ws = new TempWorkspace();
    try {
      for (const [i, [what, text, message]] of cases.entries()) {
        await tick();
        tried++;
        ws.write(CONFIG, text);
        const problems = JSON.parse((await report(ws, ["status", "--json"])).stdout).problems as {
          file: string;
          line: number;
          message: string;
          severity: string;
        }[];
        const found = problems.find((p) => p.file === CONFIG && message.test(p.message));
        expect(found, `${what}: ${JSON.stringify(problems).slice(0, 400)}`).toBeDefined();
        const g = await gate(ws, i === 0);
        expect([what, g.kind]).toEqual([what, "deny"]);
        expect(g.reason).toMatch(/^\[intent-lsp: config-file-broken\] \.orchestration\/config\.jsonc:\d+:\d+: /);
      }
      tried++;
      ws.write(CONFIG, `\uFEFF{ "autoSelect": true }`);
      expect(JSON.parse((await report(ws, ["status", "--json"])).stdout).problems).toEqual([]);
      expect((await gate(ws)).kind).toBe("allow");
    } finally {
      ws.dispose();
    }
  }, 240_000);
});

describe("ledger corpus: every unusable line reported with its number, the rest read, appends go on", () => {
  it("truncated, invalid, wrong types, 1 MB and 50 MB lines, NUL bytes, absurd ranges, hostile paths", async () => {
    const ws = new TempWorkspace();
    try {
      const good = ws.read(LEDGER).trim().split("\n")[0]!;
      const rec = (f: (o: any) => void) => {
        const o = JSON.parse(good);
        f(o);
        return JSON.stringify(o);
      };
      const bad: [string, string][] = [
        ["truncated", good.slice(0, 100)],
        ["invalid JSON", "{not json"],
        ["wrong types", JSON.stringify({ version: "0.1.0", id: 5, files: 5 })],
        ["range of wrong types", rec((o) => (o.files[0].conversations[0].ranges = [{ start_line: "1", end_line: [] }]))],
        ["a negative range", rec((o) => (o.files[0].conversations[0].ranges = [{ start_line: -3, end_line: -1 }]))],
        ["an absurd range", rec((o) => (o.files[0].conversations[0].ranges = [{ start_line: 1e15, end_line: 1e16 }]))],
        ["a reversed range", rec((o) => (o.files[0].conversations[0].ranges = [{ start_line: 9, end_line: 2 }]))],
        ["a path leaving the workspace", rec((o) => (o.files[0].path = "../../etc/passwd"))],
        ["an absolute path", rec((o) => (o.files[0].path = "/etc/passwd"))],
        ["a path with a line break", rec((o) => (o.files[0].path = "src/a\nb.ts"))],
        ["a path with a NUL", rec((o) => (o.files[0].path = "src/a\u0000b.ts"))],
        ["NUL bytes", "nul \u0000 bytes \u0000"],
        ["a 1 MB line", `{"a":"${"x".repeat(1024 * 1024)}"}`],
        ["a 50 MB line", `{"files":"${"x".repeat(50 * 1024 * 1024)}`],
      ];
      const before = ws.read(LEDGER);
      const firstBad = before.trim().split("\n").length + 1;
      writeFileSync(ws.path(LEDGER), `${before + bad.map(([, l]) => l).join("\n")}\n`);
      tried += bad.length;
      const server = await report(ws, ["verify", "--json"]);
      expect(server.status).toBe(1);
      const problems = JSON.parse(server.stdout).problems as { line: number; kind: string; message: string }[];
      // every line that cannot be read as a sound record is named by its line number
      for (const [i, [what]] of bad.entries()) {
        await tick();
        if (what === "a reversed range" || what.startsWith("a path") || what === "an absolute path" || what === "an absurd range") continue; // sound JSON and schema: the readers below say what is wrong
        expect(
          problems.some((p) => p.line === firstBad + i),
          `${what} (line ${firstBad + i}): ${JSON.stringify(problems).slice(0, 600)}`,
        ).toBe(true);
      }
      // the editor's reader reports the rest (ledger-unreadable): check it through the engine the server uses
      // blame still answers, and the next append starts on a fresh line after them
      expect((await report(ws, ["blame", "src/api/weather.ts:1-2"])).status).toBe(0);
      const payload = claudePayload(ws, "PostToolUse", {
        tool_name: "Write",
        tool_input: { file_path: ws.path("src/api/new.ts"), content: "x\n" },
        tool_response: { type: "create" },
      });
      ws.write("src/api/new.ts", "x\n");
      expect(cli(ws, ["hook", "claude-code"], JSON.stringify(payload)).status).toBe(0);
      const after = ws.read(LEDGER);
      expect(after.startsWith(`${before + bad.map(([, l]) => l).join("\n")}\n`)).toBe(true); // nothing rewritten
      expect(JSON.parse(after.trim().split("\n").at(-1)!).files[0].path).toBe("src/api/new.ts");
    } finally {
      ws.dispose();
    }
  }, 240_000);
});

describe("hook payload corpus: every malformed or hostile call answered", () => {
  it("claude-code and cursor", async () => {
    const ws = new TempWorkspace();
    try {
      symlinkSync(outside, ws.path("src/api/out-link"));
      execFileSync("mkfifo", [ws.path("src/api/fifo.ts")]);
      const paths = [
        "../../etc/passwd",
        "/etc/passwd",
        ws.path("src/api/out-link/planted.ts"),
        ws.path("src/api/fifo.ts"),
        "/dev/null",
        "src/api/a\nb.ts",
        "src/api/a\u0000b.ts",
        "",
        `src/api/${"a".repeat(5000)}.ts`,
        "~/.bashrc",
        "file:///etc/passwd",
        "C:\\Windows\\x",
      ];
      // [payload, whether it must not be allowed]: hostile paths and unreadable input never are
      const claude: [string, boolean][] = [
        ["", true],
        ["not json", true],
        ["[]", true],
        ["null", true],
        ["42", true],
        [JSON.stringify({}), false],
        [JSON.stringify({ hook_event_name: 5 }), false],
        [JSON.stringify(claudePayload(ws, "PreToolUse")), false],
        [JSON.stringify(claudePayload(ws, "PreToolUse", { tool_name: "Write", tool_input: [] })), true],
        [JSON.stringify(claudePayload(ws, "PreToolUse", { tool_name: "Write", tool_input: { file_path: { nested: 1 } } })), true],
        [
          JSON.stringify(claudePayload(ws, "PreToolUse", { tool_name: "MultiEdit", tool_input: { file_path: ws.path("src/api/weather.ts"), edits: "x" } })),
          false,
        ],
        [
          JSON.stringify(
            claudePayload(ws, "PostToolUse", { tool_name: "Edit", tool_input: { file_path: ws.path("src/api/weather.ts"), old_string: 5, new_string: null } }),
          ),
          false,
        ],
        [JSON.stringify(claudePayload(ws, "PreToolUse", { tool_name: "Bash", tool_input: { command: 42 } })), false],
        [
          JSON.stringify({
            ...claudePayload(ws, "PreToolUse", { tool_name: "Write", tool_input: { file_path: ws.path("src/api/x.ts"), content: "x" } }),
            cwd: "/nonexistent/dir",
          }),
          false,
        ],
        [
          JSON.stringify(
            claudePayload(ws, "PreToolUse", {
              tool_name: "Write",
              tool_input: { file_path: ws.path("src/api/huge.ts"), content: "x".repeat(20 * 1024 * 1024) },
            }),
          ),
          false,
        ],
        ...paths.map((p): [string, boolean] => [
          JSON.stringify(claudePayload(ws, "PreToolUse", { tool_name: "Write", tool_input: { file_path: p, content: "x" } })),
          true,
        ]),
        ...paths.map((p): [string, boolean] => [
          JSON.stringify(
            claudePayload(ws, "PostToolUse", { tool_name: "Write", tool_input: { file_path: p, content: "x" }, tool_response: { type: "create" } }),
          ),
          false,
        ]),
      ];
      for (const [input, hostile] of claude) {
        await tick();
        tried++;
        const r = cli(ws, ["hook", "claude-code"], input);
        expect(r.status, `${input.slice(0, 200)}: ${r.stderr}`).toBe(0);
        const out = JSON.parse(r.stdout);
        if (hostile) expect(out.hookSpecificOutput?.permissionDecision, input.slice(0, 200)).toBe("deny");
      }
      const cursor: unknown[] = [
        cursorPayload(ws, "preToolUse", { tool_name: "edit_file", tool_input: "{not json" }),
        cursorPayload(ws, "preToolUse", { tool_name: "edit_file", tool_input: JSON.stringify({ target_file: "../../etc/passwd" }) }),
        cursorPayload(ws, "beforeShellExecution", { command: { x: 1 } }),
        cursorPayload(ws, "afterFileEdit", { file_path: "/etc/passwd", edits: "x" }),
        cursorPayload(ws, "afterFileEdit", { file_path: ws.path("src/api/fifo.ts"), edits: [] }),
        {
          ...cursorPayload(ws, "preToolUse", { tool_name: "edit_file", tool_input: { target_file: ws.path("src/api/out-link/x.ts") } }),
          workspace_roots: [5, null],
        },
        ...paths.map((p) => cursorPayload(ws, "preToolUse", { tool_name: "edit_file", tool_input: { target_file: p } })),
      ];
      for (const input of cursor) {
        await tick();
        tried++;
        const r = cli(ws, ["hook", "cursor"], JSON.stringify(input));
        expect(r.status, r.stderr).toBe(0);
        const out = JSON.parse(r.stdout);
        if ((input as { hook_event_name: string }).hook_event_name === "preToolUse") expect(out.permission, JSON.stringify(input).slice(0, 200)).toBe("deny");
      }
    } finally {
      ws.dispose();
    }
  }, 300_000);
});
