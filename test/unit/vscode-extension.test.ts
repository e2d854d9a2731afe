// The VS Code extension's data-only parts: contributed settings made from shared/src/settings.ts (so they
// cannot drift from what the server reads), the settings it sends, and what the status bar and pickers show.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { contributedConfiguration, explicitSettings, type Inspected } from "../../clients/vscode/src/configuration";
import { blockHintsWanted, intentContextValue, intentPicks, revertCounts, revertPreview, statusText } from "../../clients/vscode/src/presentation";
import type { IntentRow } from "../../clients/vscode/src/server";
import { mergeSettings } from "../../server/src/engine/settings";
import { selectMove } from "../../server/src/engine/intents/lifecycle";
import type { IntentStatus } from "../../server/src/engine/intents/model";
import { editorSettings } from "../../server/src/lsp/settings";
import { defaultSettings } from "@shared/settings";
import type { RevertResult } from "@shared/commands";
import { DiagnosticCodes } from "@shared/diagnosticCodes";

/** Nests `{"severity.out-of-scope": "error"}` as the server reads it. */
function nest(flat: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [key, value] of Object.entries(flat)) {
    const [head, ...rest] = key.split(".");
    out[head] ??= {};
    out[head][rest.join(".")] = value;
  }
  return out;
}

describe("contributed configuration", () => {
  const { properties } = contributedConfiguration();
  const editorKeys = Object.keys(properties).filter((k) => k !== "intentLsp.trace.server");

  it("every setting is under intentLsp, described, and trace.server is there", () => {
    expect(Object.keys(properties).every((k) => k.startsWith("intentLsp."))).toBe(true);
    for (const k of Object.keys(properties)) expect(properties[k].description?.length ?? 0, k).toBeGreaterThan(20);
    expect(properties["intentLsp.trace.server"]).toMatchObject({ enum: ["off", "messages", "verbose"], default: "off" });
    expect(editorKeys).toContain(`intentLsp.severity.out-of-scope`);
    expect(editorKeys.filter((k) => k.startsWith("intentLsp.severity.")).length).toBe(DiagnosticCodes.length);
  });

  it("its defaults, sent to the server as they are, are accepted without a warning and are the server's defaults", () => {
    const flat = Object.fromEntries(editorKeys.map((k) => [k.slice("intentLsp.".length), properties[k].default]));
    const raw = nest(flat);
    if (raw.contributor.modelId === "") delete raw.contributor.modelId;
    const { values, issues } = editorSettings(raw);
    expect(issues).toEqual([]);
    expect(mergeSettings(values)).toEqual(defaultSettings);
  });

  it("every enum value is one the server accepts", () => {
    for (const code of DiagnosticCodes) {
      for (const sev of properties[`intentLsp.severity.${code}`].enum ?? []) {
        expect(editorSettings({ severity: { [code]: sev } }).issues, `${code}=${sev}`).toEqual([]);
      }
    }
    for (const type of properties["intentLsp.contributor.type"].enum ?? []) {
      expect(editorSettings({ contributor: { type } }).issues).toEqual([]);
    }
  });
});

describe("explicitSettings: only what the user set reaches the server", () => {
  const inspector = (set: Record<string, Inspected>) => (key: string) => set[key];

  it("nothing set: nothing sent, so config.jsonc and the server's defaults apply", () => {
    expect(explicitSettings(inspector({}), () => "human")).toEqual({});
  });

  it("folder beats workspace beats user; severities are sent per code", () => {
    const sent = explicitSettings(
      inspector({
        "severity.out-of-scope": { globalValue: "warning", workspaceValue: "hint" },
        "severity.stale-file": { globalValue: "off" },
        "codeLens.enabled": { globalValue: true, workspaceFolderValue: false },
      }),
      () => undefined,
    );
    expect(sent).toEqual({ severity: { "out-of-scope": "hint", "stale-file": "off" }, codeLens: { enabled: false } });
    expect(editorSettings(sent).issues).toEqual([]);
  });

  it("a model id alone carries the effective contributor type, since the server takes the contributor whole", () => {
    const sent = explicitSettings(inspector({ "contributor.modelId": { globalValue: "anthropic/claude-sonnet-4-5" } }), (k) =>
      k === "contributor.type" ? "human" : undefined,
    );
    expect(sent).toEqual({ contributor: { type: "human", modelId: "anthropic/claude-sonnet-4-5" } });
    expect(editorSettings(sent)).toEqual({ values: { contributor: { type: "human", modelId: "anthropic/claude-sonnet-4-5" } }, issues: [] });
  });
});

describe("status bar and intent pickers", () => {
  const base = { path: "docs/notes.md", exempt: false, owners: ["INT-003", "INT-004"] };
  const int3 = { id: "INT-003", name: "Docs refresh", status: "IN_PROGRESS" };

  it("says which intent counts and how it was chosen", () => {
    expect(statusText({ ...base, intent: int3, how: "auto-selected", problem: null }).text).toBe("$(target) INT-003 · auto-selected");
    expect(statusText({ ...base, intent: int3, how: "selected", problem: null }).text).toBe("$(target) INT-003 · selected");
    const out = statusText({ ...base, intent: { id: "INT-001", name: "Build Weather API", status: "IN_PROGRESS" }, how: "selected", problem: "out-of-scope" });
    expect(out).toMatchObject({ text: "$(warning) INT-001 · selected", warn: true });
    expect(out.tooltip).toContain("docs/notes.md is outside INT-001's scope.");
    expect(out.tooltip).toContain("Owned by INT-003, INT-004.");
    expect(statusText({ ...base, intent: null, how: "none", problem: "no-active-intent" }).text).toBe("$(warning) No intent · none");
    expect(statusText({ ...base, path: null, owners: [], intent: null, how: "none", problem: null }).text).toBe("$(circle-slash) No intent · none");
  });

  const row = (id: string, name: string, status: string, transitions: string[], selected = false): IntentRow => ({
    id,
    name,
    status,
    owned_scope: [`${id.toLowerCase()}/**`],
    selected,
    files: [],
    transitions,
    selectAs: selectMove(status as IntentStatus) ?? null,
  });
  const rows = [
    row("INT-001", "Build Weather API", "IN_PROGRESS", ["COMPLETE", "BLOCKED", "ARCHIVED"], true),
    row("INT-002", "Token refresh", "BLOCKED", ["IN_PROGRESS", "ARCHIVED"]),
    row("INT-003", "Docs refresh", "IN_PROGRESS", ["COMPLETE", "BLOCKED", "ARCHIVED"]),
    row("INT-004", "Onboarding guide", "PENDING", ["IN_PROGRESS", "ARCHIVED"]),
    row("INT-005", "Billing export", "COMPLETE", ["ARCHIVED"]),
  ];

  it("the quick pick offers selectable intents, marks the selected one and the file's owners, and starts pending ones", () => {
    const picks = intentPicks(rows, { ...base, intent: null, how: "none", problem: null });
    expect(picks.map((p) => [p.label, p.start, p.detail ?? ""])).toEqual([
      ["$(check) INT-001 — Build Weather API", false, ""],
      ["Resume and select INT-002 — Token refresh", true, ""],
      ["INT-003 — Docs refresh", false, "$(file) owns docs/notes.md"],
      ["Start and select INT-004 — Onboarding guide", true, "$(file) owns docs/notes.md"],
    ]);
    expect(picks[0].description).toBe("IN_PROGRESS · int-001/**");
  });

  it("the Intents view's inline actions follow the moves the server allows", () => {
    expect(intentContextValue(rows[3])).toBe("intent selectable to-IN_PROGRESS to-ARCHIVED");
    expect(intentContextValue(rows[4])).toBe("intent to-ARCHIVED");
  });
});

describe("one label per block", () => {
  it("the CodeLens says who wrote a block; the inlay hint only where CodeLens does not show", () => {
    expect(blockHintsWanted(true, true)).toBe(false);
    expect(blockHintsWanted(false, true)).toBe(true);
    expect(blockHintsWanted(true, false)).toBe(true);
  });
});

describe("Intent: Revert an Intent's Work…", () => {
  type Manifest = {
    contributes: {
      commands: { command: string; title: string; category?: string }[];
      menus: Record<string, { command: string; when?: string; group?: string }[]>;
    };
  };
  const manifest = JSON.parse(readFileSync(join(__dirname, "../../clients/vscode/package.json"), "utf8")) as Manifest;

  it("the manifest contributes the command to the palette and to an intent's context menu in the Intents view", () => {
    expect(manifest.contributes.commands).toContainEqual(
      expect.objectContaining({ command: "intentLsp.revertIntent", title: "Revert an Intent's Work\u2026", category: "Intent" }),
    );
    const onItem = manifest.contributes.menus["view/item/context"]!.filter((m) => m.command === "intentLsp.revertIntent");
    expect(onItem).toHaveLength(1);
    expect(onItem[0]!.when).toBe("view == intentLsp.intents && viewItem =~ /^intent\\b/");
    // on every intent item (whatever moves it allows), in the context menu and not among the inline buttons
    expect(
      /^intent\b/.test(
        intentContextValue({ id: "INT-5", name: "x", status: "COMPLETE", owned_scope: [], selected: false, files: [], transitions: [], selectAs: null }),
      ),
    ).toBe(true);
    expect(onItem[0]!.group).not.toMatch(/^inline/);
    // no commandPalette entry hides it: from the palette it asks which intent
    expect(manifest.contributes.menus["commandPalette"]!.filter((m) => m.command === "intentLsp.revertIntent")).toEqual([]);
  });

  const result: RevertResult = {
    reverted: [{ path: "src/api/weather.ts", lines: [7, 8, 11] }],
    leftAlone: [
      { path: "src/api/weather.ts", line: 18, reason: "edited", why: "since edited by Ada (human)", text: "x" },
      { path: "src/api/v2/units.ts", line: 1, reason: "moved", why: "moved here from\nsrc/api/units.ts", text: "y" },
    ],
    notes: [{ path: "src/api/weather.ts", line: 11, note: "what it replaced is not put back" }],
    patch: "diff --git a/src/api/weather.ts b/src/api/weather.ts\n",
    applied: false,
  };

  it("the confirmation counts the lines to take back and those left alone", () => {
    expect(revertCounts(result)).toBe("3 lines to take back, 2 left alone");
    expect(revertCounts({ ...result, reverted: [{ path: "a", lines: [1] }], applied: true })).toBe("1 line taken back, 2 left alone");
  });

  it("the preview says every line taken back, left alone and noted as comments above the patch, one line each", () => {
    expect(revertPreview("INT-001", result)).toBe(
      [
        "# Revert of INT-001's work: 3 lines to take back, 2 left alone",
        "# src/api/weather.ts: takes back line(s) 7, 8, 11",
        "# src/api/weather.ts:18: left alone (edited): since edited by Ada (human)",
        "# src/api/v2/units.ts:1: left alone (moved): moved here from src/api/units.ts",
        "# src/api/weather.ts:11: note: what it replaced is not put back",
        "",
        "diff --git a/src/api/weather.ts b/src/api/weather.ts",
        "",
      ].join("\n"),
    );
  });
});
