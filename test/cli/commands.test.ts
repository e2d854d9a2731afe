import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";
import { buildRecord } from "../../server/src/engine/ledger/record";
import { diffTexts } from "../../server/src/engine/lineChange";
import { fileHash } from "../../server/src/engine/hashing";
import { ensureBuilt } from "../support/builtDist";
import { runCli, runCliInProcess, runHookInProcess } from "../support/cliRunner";
import { CLAUDE_SESSION, claudeEdit, writeTranscript } from "../support/hookPayloads";
import { ledgerRecords, LEDGER } from "../support/ledgerFile";

beforeAll(ensureBuilt);

const YAML = ".orchestration/active_intents.yaml";

describe("intent select / status / lifecycle", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
  });
  afterEach(() => ws.dispose());

  it("select writes the workspace selection the editor reads; --clear clears it", async () => {
    const r = await runCliInProcess(["select", "INT-003"], { cwd: ws.path("src/api") }); // found from a subfolder
    expect(r).toMatchObject({
      status: 0,
      stdout: "Selected INT-003 (Docs refresh) for the workspace; editors and agents without a selection of their own follow it.\n",
      stderr: "",
    });
    const sel = JSON.parse(ws.read(".orchestration/.sessions/workspace.json"));
    expect(sel).toMatchObject({ intent: "INT-003" });
    expect(sel.by).toMatch(/^cli \(/);
    expect((await runCliInProcess(["select", "--clear"], { cwd: ws.root })).stdout).toBe(
      "Cleared the workspace selection; edits count under an intent only by auto-selection.\n",
    );
    expect(JSON.parse(ws.read(".orchestration/.sessions/workspace.json")).intent).toBeNull();
  });

  it("select refuses unknown and not-started intents, and --start starts then selects", async () => {
    expect(await runCliInProcess(["select", "INT-999"], { cwd: ws.root })).toMatchObject({
      status: 1,
      stderr:
        "intent select: no intent INT-999 in active_intents.yaml. `intent status` lists the intents to select (more work is a new intent, declared in .orchestration/active_intents.yaml).\n",
    });
    expect(await runCliInProcess(["select", "INT-004"], { cwd: ws.root })).toMatchObject({
      status: 1,
      stderr: "intent select: INT-004 is PENDING. `intent select INT-004 --start` starts and selects it; or `intent start INT-004` starts it.\n",
    });
    const r = await runCliInProcess(["select", "INT-004", "--start"], { cwd: ws.root });
    expect(r.stdout).toBe(
      "INT-004: PENDING → IN_PROGRESS\nSelected INT-004 (Onboarding guide) for the workspace; editors and agents without a selection of their own follow it.\n",
    );
    expect(ws.read(YAML)).toMatch(/id: INT-004\n {4}name: Onboarding guide\n {4}status: IN_PROGRESS\n/);
  });

  it("start/complete/block/archive move an intent, keep the file's comments, and refuse with the lifecycle's reason", async () => {
    expect((await runCliInProcess(["complete", "INT-001", "--yes"], { cwd: ws.root })).stdout).toBe(
      "Verifying INT-001 (Build Weather API): 0 commands to run, 1 sentence to confirm\n  ✓ Unit tests in test/api pass (confirmed by --yes)\nINT-001: IN_PROGRESS → COMPLETE\n",
    );
    expect((await runCliInProcess(["start", "INT-002"], { cwd: ws.root })).stdout).toBe("INT-002: BLOCKED → IN_PROGRESS\n");
    expect((await runCliInProcess(["block", "INT-002"], { cwd: ws.root })).stdout).toBe("INT-002: IN_PROGRESS → BLOCKED\n");
    expect((await runCliInProcess(["archive", "INT-005"], { cwd: ws.root })).stdout).toBe("INT-005: COMPLETE → ARCHIVED\n");
    const yaml = ws.read(YAML);
    expect(yaml).toContain("# Intents for the weather demo. Each intent owns the paths it may change.");
    expect(yaml).toContain("status: BLOCKED   # waiting on the identity team");
    expect(await runCliInProcess(["start", "INT-005"], { cwd: ws.root })).toMatchObject({
      status: 1,
      stdout: "",
      stderr:
        "intent start: INT-005 cannot move from ARCHIVED to IN_PROGRESS. ARCHIVED is terminal. `intent status` lists the intents to select (more work is a new intent, declared in .orchestration/active_intents.yaml).\n",
    });
    expect(await runCliInProcess(["complete", "INT-004"], { cwd: ws.root })).toMatchObject({
      status: 1,
      stderr:
        "intent complete: INT-004 cannot move from PENDING to COMPLETE. From PENDING it can move to IN_PROGRESS or ARCHIVED. `intent start INT-004` starts it.\n",
    });
  });

  it("status shows the selection, intents, YAML problems with file:line:col, and live sessions only", async () => {
    ws.select("INT-001");
    await runHookInProcess("claude-code", claudeEdit(ws, "PreToolUse", "src/api/weather.ts", "a", "b"), { cwd: ws.root });
    // a session whose heartbeat stopped long ago has expired
    ws.write(
      ".orchestration/.sessions/cursor-old.json",
      JSON.stringify({ id: "cursor-old", client: "cursor", pid: 0, host: "h", startedAt: "2020-01-01T00:00:00Z", heartbeat: "2020-01-01T00:00:00Z" }),
    );
    ws.write(YAML, ws.read(YAML).replace("status: PENDING", "status: LATER"));
    const r = await runCliInProcess(["status"], { cwd: ws.root });
    expect(r.status).toBe(0);
    const text = r.stdout.replace(/\(workspace, by .*\)/, "(workspace, by …)").replace(/seen .*$/m, "seen …");
    expect(text).toBe(
      [
        `Workspace: ${ws.root}`,
        "Selection: INT-001 — Build Weather API (workspace, by …)",
        "",
        "Intents:",
        "  * INT-001  IN_PROGRESS  Build Weather API                  src/api/**, test/api/**",
        "    INT-002  BLOCKED      Token refresh for auth middleware  src/auth/**",
        "    INT-003  IN_PROGRESS  Docs refresh                       docs/**, README.md",
        "    INT-005  COMPLETE     Billing export                     src/billing/**",
        "",
        `Problems in ${YAML}:`,
        `  ${YAML}:34:13: error: INT-004: bad status "LATER"; use one of PENDING, IN_PROGRESS, COMPLETE, BLOCKED, ARCHIVED.`,
        "",
        "Live sessions:",
        `  ${CLAUDE_SESSION}  claude-code  follows the workspace  · working on INT-001  · seen …`,
        "",
      ].join("\n"),
    );
    const json = JSON.parse((await runCliInProcess(["status", "--json"], { cwd: ws.root })).stdout);
    expect(json.selection.intent).toBe("INT-001");
    expect(json.problems).toEqual([
      {
        file: YAML,
        line: 34,
        column: 13,
        severity: "error",
        message: 'INT-004: bad status "LATER"; use one of PENDING, IN_PROGRESS, COMPLETE, BLOCKED, ARCHIVED.',
      },
    ]);
    expect(json.sessions.map((s: { id: string }) => s.id)).toEqual([CLAUDE_SESSION]);
  });

  it("says what is wrong when there is no workspace", async () => {
    const empty = new TempWorkspace({ fromExample: false });
    try {
      const r = await runCliInProcess(["status"], { cwd: empty.root });
      expect(r).toMatchObject({
        status: 1,
        stdout: "",
        stderr: `intent status: no workspace found: no .orchestration/active_intents.yaml in ${empty.root} or above, and not inside a git repository; run from your project or pass --root DIR\n`,
      });
    } finally {
      empty.dispose();
    }
  });
});

describe("intent blame / context / map / verify / migrate", () => {
  let ws: TempWorkspace;
  beforeEach(async () => {
    ws = new TempWorkspace();
    ws.write(LEDGER, "");
    ws.select("INT-001");
    writeTranscript(ws, "claude-sonnet-4-5-20250929");
    const [from, to] = ["export interface Weather {", "export interface Weather { // v2"];
    await runHookInProcess("claude-code", claudeEdit(ws, "PreToolUse", "src/api/weather.ts", from, to), { cwd: ws.root });
    ws.write("src/api/weather.ts", ws.read("src/api/weather.ts").replace(from, to));
    await runHookInProcess("claude-code", claudeEdit(ws, "PostToolUse", "src/api/weather.ts", from, to), { cwd: ws.root });
  });
  afterEach(() => ws.dispose());

  it("blame shows the agent's line with its intent and model, the rest untraced; --json has the editor's fields", async () => {
    const [record] = ledgerRecords(ws);
    const r = await runCliInProcess(["blame", "src/api/weather.ts:2-4"], { cwd: ws.root });
    const when = record!.timestamp.slice(0, 16).replace("T", " ");
    const id = record!.id.slice(0, 8);
    const pad = " ".repeat(`claude-sonnet-4-5-20250929  ${when}  ${id}`.length);
    expect(r.stdout).toBe(
      [
        `2  untraced  ${pad} │ `,
        `3  INT-001   claude-sonnet-4-5-20250929  ${when}  ${id} │ export interface Weather { // v2`,
        `4  untraced  ${pad} │   city: string;`,
        "",
      ].join("\n"),
    );
    const json = JSON.parse((await runCliInProcess(["blame", "src/api/weather.ts:3", "--json"], { cwd: ws.root })).stdout);
    expect(json).toEqual({
      path: "src/api/weather.ts",
      lines: [
        {
          line: 3,
          kind: "traced",
          author: "ai",
          intent: "INT-001",
          contributor: "ai",
          model: "anthropic/claude-sonnet-4-5-20250929",
          timestamp: record!.timestamp,
          traceId: record!.id,
          exact: true,
          confidence: "exact",
          text: "export interface Weather { // v2",
        },
      ],
    });
    expect(await runCliInProcess(["blame", "src/api/nope.ts"], { cwd: ws.root })).toMatchObject({
      status: 1,
      stderr: `intent blame: src/api/nope.ts: no such file in ${ws.root}\n`,
    });
    expect(await runCliInProcess(["blame", "src/api/weather.ts:9-3"], { cwd: ws.root })).toMatchObject({ status: 2 });
  });

  it("blame answers from the ledger config.jsonc names, and leaves the intents unread: no catalogue is cached", async () => {
    const line = (r: { stdout: string }) => r.stdout.split(" │ ")[0]!.split(/\s+/).slice(0, 2);
    expect(line(await runCliInProcess(["blame", "src/api/weather.ts:3"], { cwd: ws.root }))).toEqual(["3", "INT-001"]);
    // the records moved to another ledger that config.jsonc names: blame reads that one
    ws.write(".orchestration/moved.jsonl", ws.read(LEDGER));
    ws.write(LEDGER, "");
    ws.write(".orchestration/config.jsonc", `{ "ledgerPath": ".orchestration/moved.jsonl" }`);
    rmSync(ws.path(".orchestration/.cache"), { recursive: true, force: true });
    expect(line(await runCliInProcess(["blame", "src/api/weather.ts:3"], { cwd: ws.root }))).toEqual(["3", "INT-001"]);
    expect(existsSync(ws.path(".orchestration/.cache/catalogue.json"))).toBe(false);
    // a command that judges by the intents loads them (and caches them)
    expect((await runCliInProcess(["status"], { cwd: ws.root })).status).toBe(0);
    expect(existsSync(ws.path(".orchestration/.cache/catalogue.json"))).toBe(true);
  });

  it("blame marks a line recorded outside its intent's scope \"(out of scope)\", as the editor's CodeLens does", async () => {
    // a person's save of docs/notes.md while INT-001 (src/api/**) was selected: recorded, and recorded as such
    const before = ws.read("docs/notes.md");
    const after = before.replace(/\n/, "\nA line saved out of scope.\n");
    ws.write("docs/notes.md", after);
    const record = buildRecord({
      path: "docs/notes.md",
      content: after,
      change: diffTexts(before, after),
      mutationClass: "DOCUMENTATION",
      preHash: fileHash(before),
      scope: "OUT_OF_SCOPE",
      contributor: { type: "human" },
      person: { name: "Ada Lovelace" },
      sessionId: "s",
      toolVersion: "0",
      intentId: "INT-001",
    });
    writeFileSync(join(ws.root, LEDGER), `${ws.read(LEDGER)}${JSON.stringify(record)}\n`);
    const r = await runCliInProcess(["blame", "docs/notes.md:2"], { cwd: ws.root });
    expect(r.stdout).toBe(
      `2  INT-001 (out of scope)  Ada Lovelace  ${record.timestamp.slice(0, 16).replace("T", " ")}  ${record.id.slice(0, 8)} │ A line saved out of scope.\n`,
    );
    const json = JSON.parse((await runCliInProcess(["blame", "docs/notes.md:2", "--json"], { cwd: ws.root })).stdout);
    expect(json.lines[0]).toMatchObject({ intent: "INT-001", outOfScope: true, contributor: "human", person: "Ada Lovelace" });
  });

  it("context prints the <intent_context> XML within the budget, dropping the oldest traces first", async () => {
    ws.write(".specify/specs/api.md", "# Weather API spec\n\nGET /weather?city=… returns { city, celsius, summary }.\n");
    const xml = (await runCliInProcess(["context", "INT-001"], { cwd: ws.root })).stdout;
    const [record] = ledgerRecords(ws);
    expect(xml).toBe(
      [
        '<intent_context id="INT-001" status="IN_PROGRESS">',
        "  <intent>",
        "    <name>Build Weather API</name>",
        "    <status>IN_PROGRESS</status>",
        "    <owned_scope>",
        "      <glob>src/api/**</glob>",
        "      <glob>test/api/**</glob>",
        "    </owned_scope>",
        "    <constraints>",
        "      <constraint>Use TypeScript</constraint>",
        "      <constraint>No new runtime dependencies</constraint>",
        "    </constraints>",
        "    <acceptance_criteria>",
        "      <criterion>Unit tests in test/api pass</criterion>",
        "    </acceptance_criteria>",
        "    <tags>",
        "      <tag>api</tag>",
        "    </tags>",
        "  </intent>",
        "  <related_specs>",
        '    <spec type="speckit" ref=".specify/specs/api.md">',
        "# Weather API spec",
        "",
        "GET /weather?city=… returns { city, celsius, summary }.",
        "    </spec>",
        "  </related_specs>",
        "  <related_files>",
        '    <file path="src/api/weather.ts" edits="1"/>',
        "  </related_files>",
        "  <recent_traces>",
        `    <trace id="${record!.id}" time="${record!.timestamp}" file="src/api/weather.ts" lines="3-3" contributor="ai" model="anthropic/claude-sonnet-4-5-20250929"/>`,
        "  </recent_traces>",
        "</intent_context>",
        "",
      ].join("\n"),
    );

    // many traces: the budget holds and the oldest go first
    const lines: string[] = [];
    for (let i = 0; i < 400; i++) {
      const ts = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
      lines.push(
        JSON.stringify({
          version: "0.1.0",
          id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
          timestamp: ts,
          files: [
            {
              path: "src/api/forecast.ts",
              conversations: [
                { contributor: { type: "human" }, ranges: [{ start_line: 1, end_line: 2 }], related: [{ type: "intent", url: "urn:intent:INT-001" }] },
              ],
            },
          ],
        }),
      );
    }
    writeFileSync(ws.path(LEDGER), `${lines.join("\n")}\n`);
    const big = (await runCliInProcess(["context", "INT-001"], { cwd: ws.root })).stdout;
    expect(Buffer.byteLength(big)).toBeLessThanOrEqual(16 * 1024);
    expect(big).toContain(`time="2026-01-01T06:39:00.000Z"`); // the newest trace stays
    expect(big).not.toContain(`time="2026-01-01T00:00:00.000Z"`); // the oldest went
    expect(big).toMatch(/<omitted reason="budget" traces="\d+" spec_excerpts="0" files="0"\/>/);
    expect(big).toContain("<spec "); // specs and files outlast traces
    const tiny = (await runCliInProcess(["context", "INT-001", "--budget", "850"], { cwd: ws.root })).stdout;
    expect(Buffer.byteLength(tiny)).toBeLessThanOrEqual(850);
    expect(tiny).toContain('<spec type="speckit" ref=".specify/specs/api.md"/>'); // the excerpt went, the reference stayed
    expect(tiny).toContain('<file path="src/api/forecast.ts" edits="400"/>'); // related files go last
    expect(tiny).toContain('<omitted reason="budget" traces="400" spec_excerpts="1" files="0"/>');
  });

  it("map writes intent_map.md from the ledger and is idempotent", async () => {
    expect((await runCliInProcess(["map"], { cwd: ws.root })).stdout).toBe("Wrote .orchestration/intent_map.md (5 intents, 1 records).\n");
    const first = ws.read(".orchestration/intent_map.md");
    expect(first).toContain("## INT-001 — Build Weather API\n\nStatus: IN_PROGRESS · scope: `src/api/**`, `test/api/**`\nEdits: 1");
    expect(first).toContain("- `src/api/weather.ts`");
    expect((await runCliInProcess(["map"], { cwd: ws.root })).stdout).toBe(".orchestration/intent_map.md is up to date (5 intents, 1 records).\n");
    expect(ws.read(".orchestration/intent_map.md")).toBe(first);
  });

  it("verify passes a clean ledger and reports an edited record with exit 1", async () => {
    await runHookInProcess("claude-code", claudeEdit(ws, "PostToolUse", "src/api/weather.ts", "x", "y"), { cwd: ws.root }); // duplicate: no record
    ws.write("src/api/forecast.ts", ws.read("src/api/forecast.ts").replace("export interface Hour {", "export interface Hour { // v2"));
    await runHookInProcess("claude-code", claudeEdit(ws, "PostToolUse", "src/api/forecast.ts", "export interface Hour {", "export interface Hour { // v2"), {
      cwd: ws.root,
    });
    expect(await runCliInProcess(["verify"], { cwd: ws.root })).toMatchObject({ status: 0, stdout: "2 records; no problems.\n" });
    const text = ws.read(LEDGER).replace('"scope":"PASS"', '"scope":"OUT_OF_SCOPE"'); // someone edits record 1
    ws.write(LEDGER, text);
    const r = await runCliInProcess(["verify"], { cwd: ws.root });
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^\.orchestration\/agent_trace\.jsonl:1: chain: does not match the hash line 2 recorded/);
    expect(r.stdout.trim().split("\n").pop()).toBe("2 records; 1 problem.");
  });

  it("migrate converts older dialects into a new, valid ledger and never touches the original", async () => {
    const fixtures = ["older-dialect.jsonl", "flat-dialect.jsonl", "reference-impl-traces.jsonl"].map((f) =>
      readFileSync(join(REPO_ROOT, "test/fixtures/agent-trace", f), "utf8"),
    );
    const old = fixtures.join("");
    ws.write("legacy.jsonl", old);
    const r = await runCliInProcess(["migrate", "--from", "legacy.jsonl"], { cwd: ws.root });
    expect(r).toMatchObject({ status: 0, stderr: "" });
    expect(r.stdout).toBe(
      "Wrote 6 records to .orchestration/agent_trace.migrated.jsonl (converted: 2 older, 2 flat, 2 reference; kept: 0 already 0.1.0). legacy.jsonl is unchanged; check the result with `intent verify --ledger .orchestration/agent_trace.migrated.jsonl`.\n",
    );
    expect(ws.read("legacy.jsonl")).toBe(old);
    expect(await runCliInProcess(["verify", "--ledger", ".orchestration/agent_trace.migrated.jsonl"], { cwd: ws.root })).toMatchObject({
      status: 0,
      stdout: "6 records; no problems.\n",
    });
    const migrated = ws
      .read(".orchestration/agent_trace.migrated.jsonl")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(migrated[0].files[0]).toMatchObject({
      path: "src/api/weather.ts",
      conversations: [
        {
          contributor: { type: "ai", model_id: "anthropic/claude-3-5-sonnet" },
          related: [{ type: "intent", url: "urn:intent:INT-001" }, { type: "specification" }],
        },
      ],
    });
    expect(migrated[2].metadata["dev.intent-lsp"]).toMatchObject({
      intent_id: "INT-002",
      mutation_class: "INTENT_EVOLUTION",
      post_hash: "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    });
    expect(await runCliInProcess(["migrate", "--from", "legacy.jsonl"], { cwd: ws.root })).toMatchObject({
      status: 1,
      stderr: "intent migrate: .orchestration/agent_trace.migrated.jsonl already exists; pass --force to replace it, or --out FILE\n",
    });
  });

  it("migrate --out and export --out write where the person names them, a regular or new file only", async () => {
    ws.write("legacy.jsonl", `${JSON.stringify({ intent_id: "INT-001", file_path: "src/api/x.ts", timestamp: "2026-01-01T00:00:00Z" })}\n`);
    const outside = realpathSync(mkdtempSync(join(tmpdir(), "intent-out-")));
    try {
      mkdirSync(join(outside, "folder"));
      for (const command of [["migrate", "--from", "legacy.jsonl", "--force"], ["export"]]) {
        const name = command[0]!;
        expect(await runCliInProcess([...command, "--out", join(outside, "folder")], { cwd: ws.root })).toMatchObject({
          status: 1,
          stderr: `intent ${name}: ${join(outside, "folder")} is a directory, not a regular file; nothing was written. Name a file (new or regular) instead.\n`,
        });
        expect(await runCliInProcess([...command, "--out", join(outside, "none", "x.jsonl")], { cwd: ws.root })).toMatchObject({
          status: 1,
          stderr: expect.stringContaining(`intent ${name}: the folder ${join(outside, "none")} does not exist`),
        });
        expect(await runCliInProcess([...command, "--out", join(outside, `${name}.jsonl`)], { cwd: ws.root })).toMatchObject({ status: 0 });
        expect(existsSync(join(outside, `${name}.jsonl`))).toBe(true);
      }
      expect(readdirSync(outside).sort()).toEqual(["export.jsonl", "folder", "migrate.jsonl"]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe("intent: help, version, usage errors", () => {
  it("--help lists the commands, <cmd> --help shows its usage, --version the version", () => {
    const cwd = REPO_ROOT;
    const help = runCli(["--help"], { cwd });
    expect(help.status).toBe(0);
    for (const c of ["check", "blame", "hook", "select", "start", "complete", "block", "archive", "status", "context", "verify", "map", "migrate"])
      expect(help.stdout).toMatch(new RegExp(`^  ${c} `, "m"));
    expect(runCli(["check", "--help"], { cwd }).stdout).toMatch(
      /^Usage: intent check \[--base REF\] \[--staged\] \[--format text\|json\|sarif\|github\|markdown\] \[--path GLOB\]\n\s+\[--since WHEN\] \[--until WHEN\] \[--by day\|week\|month\] \[--root DIR\]/,
    );
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));
    expect(runCli(["--version"], { cwd })).toMatchObject({ status: 0, stdout: `${pkg.version}\n` });
  });

  it("unknown commands and options are one line on stderr, exit 2", () => {
    expect(runCli(["frobnicate"], { cwd: REPO_ROOT })).toMatchObject({
      status: 2,
      stdout: "",
      stderr: 'intent: unknown command "frobnicate"; run `intent --help` for the list\n',
    });
    expect(runCli(["status", "--colour"], { cwd: REPO_ROOT })).toMatchObject({
      status: 2,
      stdout: "",
      stderr: "intent status: Unknown option '--colour'; see `intent status --help`\n",
    });
    expect(runCli(["hook", "vim"], { cwd: REPO_ROOT })).toMatchObject({
      status: 2,
      stderr:
        'intent hook: unknown agent "vim"; use one of claude-code, cursor, codex, gemini, copilot, windsurf, cline, droid, qwen, kiro, goose, auggie, opencode, amp\n',
    });
  });
});
