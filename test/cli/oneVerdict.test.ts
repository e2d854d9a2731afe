import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeSession } from "../../server/src/io/sessionFiles";
import { ensureBuilt } from "../support/builtDist";
import { runCliInProcess, runHookInProcess } from "../support/cliRunner";
import { git, gitWorkspace } from "../support/gitRepository";
import { claudePayload, writeTranscript } from "../support/hookPayloads";
import { startInProcess } from "../support/inProcessServer";
import type { LspClient } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";

/**
 * One verdict (docs/ARCHITECTURE.md "Bird's-eye view"): whatever door a change comes through — an agent's
 * Write tool, an agent's shell command, a person's save in the editor — `intent check` reports it as an
 * error exactly when the agent gate denies a write of that path under the same selection, and with the
 * gate's code. Cases are generated from a seeded PRNG (path × owners' statuses × selection × door), grouped
 * into workspaces by their workspace selection so that a workspace's cases share one `intent check`.
 * `npm run soak` draws twice as many.
 */

beforeAll(ensureBuilt);

const STATUSES = ["IN_PROGRESS", "COMPLETE", "BLOCKED", "PENDING", "ARCHIVED"] as const;
type Status = (typeof STATUSES)[number];
type Door = "write" | "shell" | "editor";
type Change = "append" | "remove-line" | "delete";

/** What a session selects on its own; "none" follows the workspace selection. */
type SessionPick = { kind: "none" } | { kind: "owner" } | { kind: "other"; status: Status } | { kind: "missing" };
/** The workspace selection: nothing, an id the catalogue does not declare, or SEL-001 in a status. */
type WorkspacePick = { kind: "none" } | { kind: "missing" } | { kind: "sel"; status: Status };

interface Case {
  n: number;
  path: string;
  ignored: boolean;
  /** Statuses of the case's own owners (A-n, B-n); SEL-001 owns the path too when `selOwns`. */
  owners: Status[];
  selOwns: boolean;
  pick: SessionPick;
  door: Door;
  change: Change;
}

interface Group {
  workspace: WorkspacePick;
  cases: Case[];
}

/** mulberry32: a small seeded PRNG, so a failing case is the same case on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = 20261129;
/** Seven cases a workspace in `npm test` (the first test below holds them to every kind), fourteen under `npm run soak`. */
const CASES_PER_GROUP = process.env["INTENT_LSP_SOAK"] ? 14 : 7;
const id3 = (n: number) => String(n).padStart(3, "0");

function generate(seed: number): Group[] {
  const random = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const workspaces: WorkspacePick[] = [{ kind: "none" }, { kind: "missing" }, ...STATUSES.map((status) => ({ kind: "sel" as const, status }))];
  let n = 0;
  return workspaces.map((workspace) => {
    const cases: Case[] = [];
    for (let k = 0; k < CASES_PER_GROUP; k++) {
      n++;
      const door = pick(["write", "shell", "editor"] as const);
      const ignored = random() < 0.12;
      const owners = Array.from({ length: pick([0, 1, 1, 2]) }, () => pick(STATUSES));
      const selOwns = workspace.kind === "sel" && random() < 0.5;
      // the editor's session has no selection of its own: it follows the workspace's
      const choices: SessionPick[] =
        door === "editor"
          ? [{ kind: "none" }]
          : [
              { kind: "none" },
              { kind: "none" },
              ...(owners.length ? [{ kind: "owner" } as const] : []),
              { kind: "other", status: pick(STATUSES) },
              { kind: "missing" },
            ];
      const change = pick(door === "shell" ? (["append", "remove-line", "delete"] as const) : (["append", "remove-line"] as const));
      cases.push({ n, path: `${ignored ? "ign" : "c"}${id3(n)}/file.ts`, ignored, owners, selOwns, pick: pick(choices), door, change });
    }
    return { workspace, cases };
  });
}

function catalogue(group: Group): string {
  const intent = (id: string, status: Status, scope: string[]) =>
    `  - id: ${id}\n    name: Work ${id}\n    status: ${status}\n    owned_scope: [${scope.map((s) => JSON.stringify(s)).join(", ")}]\n`;
  const folder = (c: Case) => `${c.path.split("/")[0]}/**`;
  let yaml = "active_intents:\n";
  if (group.workspace.kind === "sel") {
    yaml += intent("SEL-001", group.workspace.status, ["sel/**", ...group.cases.filter((c) => c.selOwns).map(folder)]);
  }
  for (const c of group.cases) {
    c.owners.forEach((status, k) => {
      yaml += intent(`${"AB"[k]}-${id3(c.n)}`, status, [folder(c)]);
    });
    if (c.pick.kind === "other") yaml += intent(`X-${id3(c.n)}`, c.pick.status, [`x${id3(c.n)}/**`]);
  }
  return yaml;
}

const sessionOf = (c: Case) => `00000000-0000-4000-8000-${String(c.n).padStart(12, "0")}`;
/** Each case's file holds its own lines: identical content in two files would make one's records explain the other. */
const fileText = (c: Case) => `export const one${c.n} = 1;\nexport const two${c.n} = 2;\nexport const three${c.n} = 3;\n`;

function workspaceFor(group: Group): TempWorkspace {
  const ws = new TempWorkspace({ fromExample: false });
  ws.write(".orchestration/active_intents.yaml", catalogue(group));
  ws.write(".orchestration/agent_trace.jsonl", "");
  ws.write(".intentignore", "ign*/\n");
  ws.write(".gitignore", ".orchestration/*.lock\n");
  for (const c of group.cases) ws.write(c.path, fileText(c));
  git(ws.root, "init", "-q");
  git(ws.root, "add", "-A");
  git(ws.root, "commit", "-q", "-m", "initial");
  writeTranscript(ws, "claude-sonnet-4-5");
  if (group.workspace.kind !== "none") ws.select(group.workspace.kind === "missing" ? "GONE-999" : "SEL-001");
  for (const c of group.cases) {
    const own = c.pick.kind === "owner" ? `A-${id3(c.n)}` : c.pick.kind === "other" ? `X-${id3(c.n)}` : c.pick.kind === "missing" ? "GONE-998" : undefined;
    if (!own) continue;
    // written as the session's file holds it: a session keeps its selection when the intent's status moves on
    const now = new Date().toISOString();
    writeSession(ws.root, { id: `claude-${sessionOf(c)}`, client: "claude-code", pid: process.pid, host: "test", startedAt: now, heartbeat: now, intent: own });
  }
  return ws;
}

const payload = (ws: TempWorkspace, c: Case, event: string, extra: Record<string, unknown>) => ({
  ...claudePayload(ws, event, extra),
  session_id: sessionOf(c),
});

/** The gate's answer to a Write of the case's path with the case's selection: "allow", or the deny code. */
async function gateVerdict(ws: TempWorkspace, c: Case, content: string, callId: string): Promise<string> {
  const r = await runHookInProcess(
    "claude-code",
    payload(ws, c, "PreToolUse", { tool_name: "Write", tool_input: { file_path: ws.path(c.path), content }, tool_use_id: callId }),
    { cwd: ws.root },
  );
  const out = (r.json as { hookSpecificOutput?: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
  if (out?.permissionDecision === "allow") return "allow";
  const code = out?.permissionDecision === "deny" ? /^\[intent-lsp: ([a-z-]+)\]/.exec(out.permissionDecisionReason)?.[1] : undefined;
  if (!code) throw new Error(`case ${c.n}: the gate answered neither allow nor deny: ${r.stdout}`);
  return code;
}

const changed = (c: Case) => (c.change === "append" ? `${fileText(c)}export const more${c.n} = ${c.n};\n` : fileText(c).split("\n").slice(1).join("\n"));

async function throughWrite(ws: TempWorkspace, c: Case): Promise<string> {
  const content = changed(c);
  const verdict = await gateVerdict(ws, c, content, `toolu_write_${c.n}`);
  // a denied write made anyway (the person let it through): the post hook records what landed
  ws.write(c.path, content);
  await runHookInProcess(
    "claude-code",
    payload(ws, c, "PostToolUse", {
      tool_name: "Write",
      tool_input: { file_path: ws.path(c.path), content },
      tool_use_id: `toolu_write_${c.n}`,
      tool_response: { filePath: ws.path(c.path), success: true },
    }),
    { cwd: ws.root },
  );
  return verdict;
}

const SHELL: Record<Change, (path: string, n: number) => string> = {
  append: (path, n) => `echo 'export const more${n} = ${n};' >> ${path}`,
  "remove-line": (path) => `sed -i '1d' ${path}`,
  delete: (path) => `rm ${path}`,
};

async function throughShell(ws: TempWorkspace, c: Case): Promise<string> {
  const verdict = await gateVerdict(ws, c, changed(c), `toolu_probe_${c.n}`);
  const command = SHELL[c.change](c.path, c.n);
  const bash = (event: string) =>
    payload(ws, c, event, {
      tool_name: "Bash",
      tool_input: { command, description: "change a file" },
      tool_use_id: `toolu_bash_${c.n}`,
      ...(event === "PostToolUse" ? { tool_response: { stdout: "", stderr: "", interrupted: false, isImage: false } } : {}),
    });
  await runHookInProcess("claude-code", bash("PreToolUse"), { cwd: ws.root });
  const sh = spawnSync("bash", ["-c", command], { cwd: ws.root, encoding: "utf8" });
  if (sh.status !== 0) throw new Error(`case ${c.n}: the test's command failed: ${sh.stderr}`);
  await runHookInProcess("claude-code", bash("PostToolUse"), { cwd: ws.root });
  return verdict;
}

async function throughEditor(ws: TempWorkspace, c: Case, client: LspClient): Promise<string> {
  const verdict = await gateVerdict(ws, c, changed(c), `toolu_probe_${c.n}`);
  await client.open(c.path, "typescript");
  if (c.change === "append") await client.insertLines(c.path, 3, [`export const more${c.n} = ${c.n};`]);
  else await client.deleteLines(c.path, 0, 1);
  await client.save(c.path);
  return verdict;
}

interface CheckFinding {
  path: string;
  code: string;
  severity: string;
}

const GROUPS = generate(SEED);
let count = 0;

describe("one verdict: the gate denies exactly what `intent check` calls an error", () => {
  afterAll(() => console.log(`one verdict: ${count} generated cases (seed ${SEED})`));

  it("the seeded cases reach every door, change, owner status, owner count and session selection", () => {
    const cases = GROUPS.flatMap((g) => g.cases);
    const kinds = (f: (c: Case) => string[]) => [...new Set(cases.flatMap(f))].sort();
    expect(kinds((c) => [`${c.door} ${c.change}`])).toEqual([
      "editor append",
      "editor remove-line",
      "shell append",
      "shell delete",
      "shell remove-line",
      "write append",
      "write remove-line",
    ]);
    expect(kinds((c) => c.owners)).toEqual([...STATUSES].sort());
    expect(kinds((c) => [`${c.owners.length + (c.selOwns ? 1 : 0)} owners${c.ignored ? ", ignored" : ""}`])).toEqual(
      expect.arrayContaining(["0 owners", "1 owners", "2 owners", "3 owners", "0 owners, ignored", "1 owners, ignored"]),
    );
    expect(kinds((c) => [c.pick.kind])).toEqual(["missing", "none", "other", "owner"]);
  });

  it.each(GROUPS.map((g) => [JSON.stringify(g.workspace), g] as const))(
    "generated cases, workspace selection %s: path × owners' statuses × session selection × door (Write tool, shell command, editor save)",
    async (_, group) => {
      const ws = workspaceFor(group);
      let client: LspClient | undefined;
      try {
        const verdicts = new Map<Case, string>();
        for (const c of group.cases) {
          if (c.door === "editor") client ??= await startInProcess({ root: ws.root });
          const verdict = c.door === "write" ? await throughWrite(ws, c) : c.door === "shell" ? await throughShell(ws, c) : await throughEditor(ws, c, client!);
          verdicts.set(c, verdict);
        }
        await client?.stop();
        client = undefined;
        const check = await runCliInProcess(["check", "--format", "json"], { cwd: ws.root });
        const findings = (JSON.parse(check.stdout) as { findings: CheckFinding[] }).findings;
        count += verdicts.size;
        const mismatches: string[] = [];
        for (const [c, verdict] of verdicts) {
          const mine = findings.filter((f) => f.path === c.path);
          const agrees = verdict === "allow" ? mine.length === 0 : mine.length > 0 && mine.every((f) => f.severity === "error" && f.code === verdict);
          if (!agrees) {
            mismatches.push(
              `case ${c.n} (${c.door} ${c.change} ${c.path}; owners ${JSON.stringify(c.owners)}${c.selOwns ? " + SEL-001" : ""}; ` +
                `session ${JSON.stringify(c.pick)}): gate ${verdict}, check ${JSON.stringify(mine)}`,
            );
          }
        }
        expect(mismatches).toEqual([]);
        const denied = [...verdicts.values()].some((v) => v !== "allow");
        expect(check.status, check.stderr).toBe(denied ? 1 : 0);
      } finally {
        await client?.stop();
        ws.dispose();
      }
    },
    300_000,
  );
});

describe("a shell write the gate would deny fails `intent check`", () => {
  it("`echo >>` to a COMPLETE intent's file with nothing selected: recorded, and an error naming the shell door (exit 1)", async () => {
    const ws = gitWorkspace();
    try {
      writeTranscript(ws, "claude-sonnet-4-5");
      const path = "src/billing/export.ts"; // INT-005's, COMPLETE
      const command = `echo '// one more export' >> ${path}`;
      const bash = (event: string) =>
        claudePayload(ws, event, {
          tool_name: "Bash",
          tool_input: { command, description: "append a line" },
          tool_use_id: "toolu_bash_verdict",
          ...(event === "PostToolUse" ? { tool_response: { stdout: "", stderr: "", interrupted: false, isImage: false } } : {}),
        });
      const write = await runHookInProcess(
        "claude-code",
        claudePayload(ws, "PreToolUse", { tool_name: "Write", tool_input: { file_path: ws.path(path), content: "x\n" }, tool_use_id: "toolu_probe" }),
        { cwd: ws.root },
      );
      expect((write.json as any).hookSpecificOutput.permissionDecision).toBe("deny");
      await runHookInProcess("claude-code", bash("PreToolUse"), { cwd: ws.root });
      spawnSync("bash", ["-c", command], { cwd: ws.root });
      await runHookInProcess("claude-code", bash("PostToolUse"), { cwd: ws.root });
      const line = ws.read(path).split("\n").length - 1;
      expect(await runCliInProcess(["check", "--base", "HEAD"], { cwd: ws.root })).toEqual({
        status: 1,
        stderr: "",
        stdout:
          `${path}:${line}: error no-active-intent: No intent selected for ${path}. Select an intent before editing. Owned by INT-005 (COMPLETE). ` +
          "Recorded from an agent's shell command (Bash, anthropic/claude-sonnet-4-5), which the gate cannot stop before it runs; the agent gate would deny this write now. " +
          "Make it under an in-progress intent that owns the file (re-record the lines, or amend that intent's scope), or revert it.\n" +
          "1 error in 1 changed line of 1 file (working tree vs HEAD).\n",
      });
    } finally {
      ws.dispose();
    }
  });
});
