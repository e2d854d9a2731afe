import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sessionFileName } from "../../server/src/engine/sessions";
import { ensureBuilt } from "../support/builtDist";
import { hookReplyInProcess, runCliInProcess } from "../support/cliRunner";
import { ALL_AGENTS, CLAUDE_CODE, type GatedAgent } from "../support/gatedAgents";
import type { HookReply } from "../support/agentFixtures";
import { claudePayload } from "../support/hookPayloads";
import { startInProcess } from "../support/inProcessServer";
import { TempWorkspace } from "../support/workspace";

/**
 * The circuit breaker (docs/AGENTS.md "Circuit breaker"): an agent session the gate denies five times within
 * a minute is told, in its own protocol, to stop and ask the person; an allowed call resets it; the editor
 * shows the person which session stopped. It never turns a denial into anything else.
 */

beforeAll(ensureBuilt);

const API = "src/api/weather.ts";
const NOTES = "docs/notes.md";

const stopText = (count: number, windowSeconds = 60) =>
  `intent-lsp denied ${count} calls of this session within ${windowSeconds} s: stop, and ask the user how to go on (which intent to select, or whether its scope should grow) before trying again.`;

const hook = (f: GatedAgent, ws: TempWorkspace, payload: unknown): Promise<HookReply> => hookReplyInProcess(f.agent, payload, { cwd: ws.root });

const denied = (f: GatedAgent, ws: TempWorkspace) => hook(f, ws, f.write(ws, "pre", { path: NOTES, from: "a", to: "b" }));
const allowed = (f: GatedAgent, ws: TempWorkspace) => hook(f, ws, f.write(ws, "pre", { path: API, from: "a", to: "b" }));

/** The text of a denial as the agent reads it, from the reply the fixture builds for it. */
function denialTextOf(f: GatedAgent, reply: HookReply): string {
  for (const candidate of [reply.stderr.trimEnd(), ...jsonStrings(reply.stdout)]) if (sameReply(f.deny(candidate), reply)) return candidate;
  throw new Error(`not a denial of ${f.agent}: ${JSON.stringify(reply)}`);
}

function jsonStrings(stdout: string): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === "string") out.push(v);
    else if (v && typeof v === "object") for (const x of Object.values(v)) walk(x);
  };
  if (stdout.trim()) walk(JSON.parse(stdout));
  return out;
}

const sameReply = (a: HookReply, b: HookReply) => a.stdout === b.stdout && a.stderr === b.stderr && a.status === b.status;

/** The reply of a denial that trips the breaker: the same denial, its text followed by the stop, and the agent stopped where its protocol can. */
function stoppedReply(f: GatedAgent, text: string, count: number): HookReply {
  const stop = stopText(count);
  const plain = f.deny(`${text} ${stop}`);
  if (f.agent === "claude-code" || f.agent === "gemini") {
    // the two protocols with a documented stop: `continue: false` and the reason shown to the user
    const body = JSON.parse(plain.stdout);
    return {
      ...plain,
      stdout: `${JSON.stringify(f.agent === "claude-code" ? { continue: false, stopReason: stop, ...body } : { ...body, continue: false, stopReason: stop })}\n`,
    };
  }
  return plain;
}

describe.each(ALL_AGENTS.map((f) => [f.agent, f] as const))("the circuit breaker, %s", (_name, f) => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.select("INT-001");
  });
  afterEach(() => ws.dispose());

  it("four denials are plain; the fifth within a minute tells the agent to stop, in its protocol; an allowed call resets it", async () => {
    const allow = await allowed(f, ws);
    const first = await denied(f, ws);
    const text = denialTextOf(f, first);
    expect(text).toMatch(/^\[intent-lsp: out-of-scope\] docs\/notes\.md is outside the scope of INT-001/);
    for (let k = 2; k <= 4; k++) expect(await denied(f, ws), `denial ${k}`).toEqual(first);
    expect(await denied(f, ws)).toEqual(stoppedReply(f, text, 5));
    // still denied, still told to stop
    expect(await denied(f, ws)).toEqual(stoppedReply(f, text, 6));
    // the next allowed call is answered as any allowed call, and the count starts again
    expect(await allowed(f, ws)).toEqual(allow);
    for (let k = 1; k <= 4; k++) expect(await denied(f, ws), `denial ${k} after the reset`).toEqual(first);
  });
});

describe("the circuit breaker's count", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.select("INT-001");
  });
  afterEach(() => ws.dispose());

  const f = CLAUDE_CODE;
  /** The session file of Claude Code's session in the fixtures (test/support/hookPayloads.ts). */
  const sessionFile = () => ws.path(`.orchestration/.sessions/${sessionFileName("claude-7f3a2c1e-0b5d-4c7e-9a41-2f6d8e9b1c30")}`);
  const isStop = (r: HookReply) => JSON.parse(r.stdout).continue === false;

  it("counts only denials within the window: older ones are forgotten", async () => {
    for (let k = 0; k < 4; k++) expect(isStop(await denied(f, ws))).toBe(false);
    const session = JSON.parse(readFileSync(sessionFile(), "utf8"));
    expect(session.denials).toHaveLength(4);
    // the four denials a minute and a second ago
    session.denials = session.denials.map((t: number) => t - 61_000);
    writeFileSync(sessionFile(), JSON.stringify(session));
    expect(isStop(await denied(f, ws))).toBe(false);
    expect(JSON.parse(readFileSync(sessionFile(), "utf8")).denials).toHaveLength(1);
  });

  it("is the workspace's setting: two denials stop when config.jsonc says so, and none ever with 0", async () => {
    ws.write(".orchestration/config.jsonc", `{ "circuitBreaker": { "denials": 2, "windowSeconds": 600 } }\n`);
    expect(isStop(await denied(f, ws))).toBe(false);
    const second = JSON.parse((await denied(f, ws)).stdout);
    expect(second.stopReason).toBe(stopText(2, 600));
    ws.write(".orchestration/config.jsonc", `{ "circuitBreaker": { "denials": 0, "windowSeconds": 60 } }\n`);
    for (let k = 0; k < 8; k++) expect(isStop(await denied(f, ws))).toBe(false);
  });

  it("a setting out of bounds is refused with the reason, and the default holds", async () => {
    ws.write(".orchestration/config.jsonc", `{ "circuitBreaker": { "denials": -1, "windowSeconds": 60 } }\n`);
    const r = await runCliInProcess(["status"], { cwd: ws.root });
    expect(`${r.stdout}${r.stderr}`).toContain(`"circuitBreaker" must be { "denials": 0..1000, "windowSeconds": 1..86400 }`);
    for (let k = 0; k < 4; k++) expect(isStop(await denied(f, ws))).toBe(false);
    expect(isStop(await denied(f, ws))).toBe(true);
  });

  it("is per session: another session's denials do not stop this one", async () => {
    const other = (payload: unknown) => ({ ...(payload as object), session_id: "another-session" });
    for (let k = 0; k < 4; k++) await hook(f, ws, other(f.write(ws, "pre", { path: NOTES, from: "a", to: "b" })));
    expect(isStop(await denied(f, ws))).toBe(false);
    expect(isStop(await hook(f, ws, other(f.write(ws, "pre", { path: NOTES, from: "a", to: "b" }))))).toBe(true);
  });

  it("a call the gate has no opinion on (a read) neither counts nor resets", async () => {
    const read = claudePayload(ws, "PreToolUse", { tool_name: "Read", tool_input: { file_path: ws.path(NOTES) }, tool_use_id: "toolu_read_1" });
    for (let k = 0; k < 4; k++) {
      expect(isStop(await denied(f, ws))).toBe(false);
      expect((await hook(f, ws, read)).stdout).toBe("{}\n");
    }
    expect(isStop(await denied(f, ws))).toBe(true);
  });

  it("the editor shows the person which session stopped, once per stop", async () => {
    const client = await startInProcess({ root: ws.root });
    try {
      await client.open(API);
      for (let k = 0; k < 5; k++) await denied(f, ws);
      const file = sessionFile().slice(ws.root.length + 1);
      await client.notifyWatched(file);
      const warning = await client.waitFor(() => client.shown.find((m) => m.message.includes("stopped claude-code session")), "the stop shown");
      expect(warning.type).toBe(2);
      expect(warning.message).toMatch(
        /^intent-lsp stopped claude-code session claude-\S+: the gate denied it 5 times within 60 s, and it was told to ask you how to go on/,
      );
      // a sixth denial is the same stop: not shown again
      await denied(f, ws);
      await client.notifyWatched(file);
      await client.executeCommand("intent.blame", { path: "README.md", quiet: true }); // the notification handled
      expect(client.shown.filter((m) => m.message.includes("stopped claude-code session"))).toHaveLength(1);
    } finally {
      await client.stop();
    }
  });
});
