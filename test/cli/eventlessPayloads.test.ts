import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/builtDist";
import { hookReplyInProcess } from "../support/cliRunner";
import { ALL_AGENTS, type GatedAgent } from "../support/gatedAgents";
import type { HookReply } from "../support/agentFixtures";
import { TempWorkspace } from "../support/workspace";

/**
 * Fail closed on a payload that names a tool call but not its event (another agent running this agent's
 * hooks, a version that renamed the field, a hand-made call): each door judges it as the call about to run,
 * exactly as the same payload with its event named, never as "some other event", which every agent reads as
 * allowed.
 */

beforeAll(ensureBuilt);

/** The field each agent names its event in (Copilot's two spellings, Goose's `event`). */
const EVENT_KEYS = ["hook_event_name", "hookEventName", "agent_action_name", "hookName", "event"];

const hook = (f: GatedAgent, ws: TempWorkspace, payload: unknown): Promise<HookReply> => hookReplyInProcess(f.agent, payload, { cwd: ws.root });

/** The payload without its event's name (Copilot's older payloads name none: its hook tells the moment by the tool's result). */
function withoutEvent(payload: unknown): Record<string, unknown> {
  const out = { ...(payload as Record<string, unknown>) };
  for (const k of EVENT_KEYS) delete out[k];
  return out;
}

describe.each(ALL_AGENTS.map((f) => [f.agent, f] as const))("intent hook %s: a write that names no event", (_name, f) => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = new TempWorkspace();
    ws.select("INT-001");
  });
  afterEach(() => ws.dispose());

  it("is answered as the same write before it runs: denied out of scope, allowed in scope", async () => {
    const out = f.write(ws, "pre", { path: "docs/notes.md", from: "a", to: "b" });
    const denied = await hook(f, ws, out);
    expect(denied.stdout + denied.stderr).toContain("[intent-lsp: out-of-scope]");
    // no field left that could still name the event (a new agent's field this test does not know)
    expect(Object.keys(withoutEvent(out)).filter((k) => /event|hook|action/i.test(k))).toEqual([]);
    expect(await hook(f, ws, withoutEvent(out))).toEqual(denied);
    const inScope = f.write(ws, "pre", { path: "src/api/weather.ts", from: "a", to: "b" });
    expect(await hook(f, ws, withoutEvent(inScope))).toEqual(await hook(f, ws, inScope));
  });
});
