import { describe, expect, it } from "vitest";
import { parsePorcelainV2 } from "../../server/src/io/agent/shellSnapshot";
import { callsHook, mergeHookConfig, HOOK_SPECS } from "../../server/src/io/setup/agentHooks";
import { appendLines, missingLines } from "../../server/src/io/setup/repoFiles";

describe("parsePorcelainV2", () => {
  it("reads changed, unmerged and untracked entries, paths with spaces included; skips headers and ignored files", () => {
    const raw = [
      "# branch.oid 0123456789abcdef0123456789abcdef01234567",
      "# branch.head main",
      "1 .M N... 100644 100644 100644 aaaaaaa bbbbbbb src/api/weather.ts",
      "1 A. N... 000000 100644 100644 0000000 ccccccc docs/new notes.md",
      "u UU N... 100644 100644 100644 100644 d1 d2 d3 src/conflict.ts",
      "? src/untracked file.ts",
      "! dist/bundle.js",
      "",
    ].join("\0");
    expect(parsePorcelainV2(raw)).toEqual(["src/api/weather.ts", "docs/new notes.md", "src/conflict.ts", "src/untracked file.ts"]);
  });
});

describe("agent hook configuration merge", () => {
  const codex = HOOK_SPECS.find((s) => s.agent === "codex")!;
  if (codex.kind !== "json") throw new Error("codex is configured in JSON");

  it("recognizes an entry that already runs the hook by another path, and adds nothing", () => {
    const text =
      '{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"node /opt/intent/dist/cli.js hook codex"}]}],"PostToolUse":[{"hooks":[{"command":"intent  hook codex"}]}]}}\n';
    expect(mergeHookConfig(codex, text)).toEqual({ ok: true, text, added: [], matched: [] });
    expect(callsHook("intent hook codex-x", "codex")).toBe(false);
    expect(callsHook("exec intent hook codex\n", "codex")).toBe(true);
    expect(callsHook("intent hook cursor", "codex")).toBe(false);
  });

  it("adds every entry of an event that takes several (Kiro: one matcher per tool) after the user's own, keeping theirs", () => {
    const kiro = HOOK_SPECS.find((s) => s.agent === "kiro")! as Parameters<typeof mergeHookConfig>[0];
    const text = '{\n  "name": "mine",\n  "hooks": {\n    "preToolUse": [\n      { "matcher": "fs_write", "command": "./lint.sh" }\n    ]\n  }\n}\n';
    const merged = mergeHookConfig(kiro, text);
    if (!merged.ok) throw new Error(merged.problem);
    const value = JSON.parse(merged.text);
    expect(value.name).toBe("mine");
    expect(value.hooks.preToolUse.map((e: { matcher: string; command: string }) => `${e.matcher} ${e.command}`)).toEqual([
      "fs_write ./lint.sh",
      "fs_write intent hook kiro",
      "execute_bash intent hook kiro",
    ]);
    expect(value.hooks.postToolUse.map((e: { matcher: string }) => e.matcher)).toEqual(["fs_write", "execute_bash"]);
    expect(mergeHookConfig(kiro, merged.text)).toEqual({ ok: true, text: merged.text, added: [], matched: [] });
  });

  it("refuses what it cannot merge into, saying where", () => {
    expect(mergeHookConfig(codex, "[1]")).toEqual({ ok: false, problem: ".codex/hooks.json is not valid JSON: the top level is not an object" });
    expect(mergeHookConfig(codex, '{"hooks": []}')).toEqual({ ok: false, problem: '.codex/hooks.json: "hooks" is not an object' });
    expect(mergeHookConfig(codex, '{"hooks": {"PreToolUse": {}}}')).toEqual({ ok: false, problem: '.codex/hooks.json: "hooks.PreToolUse" is not a list' });
  });
});

describe("git files", () => {
  it("appends only the missing lines and keeps the text as it was", () => {
    expect(missingLines(".orchestration/.sessions\n*.log\n", [".orchestration/.sessions/", ".orchestration/*.lock"])).toEqual([".orchestration/*.lock"]);
    expect(appendLines("*.log", [".orchestration/*.lock"])).toBe("*.log\n\n# intent-lsp\n.orchestration/*.lock\n");
    expect(appendLines(undefined, ["a"])).toBe("# intent-lsp\na\n");
  });
});
