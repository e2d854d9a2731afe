import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { AGENT_NAMES } from "../../server/src/cli/hook";
import { HOOK_SPECS } from "../../server/src/io/setup/agentHooks";
import { ensureBuilt } from "../support/builtDist";
import { runCli } from "../support/cliRunner";
import { NEW_AGENTS } from "../support/agentFixtures";
import { ALL_AGENTS } from "../support/gatedAgents";

/**
 * Every agent `intent hook` answers is one a user can find and set up: named in `intent hook --help`, `intent
 * init --help` and the README, set up by `intent init --agent`, described in docs/AGENTS.md's table, and run
 * through the fixture-driven protocol tests (hookAgents, the circuit breaker, event-less payloads).
 */

beforeAll(ensureBuilt);

describe("the supported agents", () => {
  it("are at least fourteen, and `intent hook` and `intent init` know the same ones", () => {
    expect(AGENT_NAMES.length).toBeGreaterThanOrEqual(14);
    expect(HOOK_SPECS.map((s) => s.agent).sort()).toEqual([...AGENT_NAMES].sort());
  });

  it("each is named in `intent hook --help`, `intent init --help` and the README", () => {
    const hookHelp = runCli(["hook", "--help"], { cwd: process.cwd() }).stdout;
    const initHelp = runCli(["init", "--help"], { cwd: process.cwd() }).stdout;
    const readme = readFileSync("README.md", "utf8");
    const quickStart = /intent init --agent claude-code[^\n]*\n[^\n]*/.exec(readme)![0];
    for (const agent of AGENT_NAMES) {
      expect(hookHelp, `intent hook --help names ${agent}`).toMatch(new RegExp(`\\b${agent}\\b`));
      expect(initHelp, `intent init --help names ${agent}`).toMatch(new RegExp(`\\b${agent}\\b`));
      expect(quickStart, `the README's setup line names ${agent}`).toMatch(new RegExp(`\\b${agent}\\b`));
    }
  });

  it("docs/AGENTS.md shows each hook entry exactly as `intent init` writes it (one entry an event)", () => {
    const doc = readFileSync("docs/AGENTS.md", "utf8");
    for (const spec of HOOK_SPECS) {
      if (spec.kind !== "json") continue;
      for (const [event, entry] of Object.entries(spec.events))
        if (!Array.isArray(entry)) expect(doc, `${spec.agent} ${event}`).toContain(` "${event}":${JSON.stringify([entry])}`);
    }
  });

  it("each has a row in docs/AGENTS.md's tables: what it is told, and what it is at a glance", () => {
    const doc = readFileSync("docs/AGENTS.md", "utf8");
    const told = doc.slice(doc.indexOf("## What each agent is told"), doc.indexOf("## What `intent init` writes"));
    for (const agent of AGENT_NAMES) expect(told, `a row for ${agent}`).toContain(`| \`${agent}\` |`);
    const glance = doc.slice(doc.indexOf("### Every agent at a glance"), doc.indexOf("### Summary: what the gate can say"));
    // one row per agent (Copilot's row covers VS Code's agent hooks, which run its door)
    expect(glance.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| agent") && !l.startsWith("|---"))).toHaveLength(AGENT_NAMES.length);
  });

  it("each has a protocol fixture, so every fixture-driven suite covers it", () => {
    expect(ALL_AGENTS.map((f) => f.agent).sort()).toEqual([...AGENT_NAMES].sort());
    expect(NEW_AGENTS.length).toBe(AGENT_NAMES.length - 2);
  });
});
