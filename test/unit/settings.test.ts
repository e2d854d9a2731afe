import { describe, expect, it } from "vitest";
import { DiagnosticCodes } from "../../shared/src/diagnosticCodes";
import { defaultSettings, EDITOR_SETTINGS, settingsSchema } from "../../shared/src/settings";
import { contributedConfiguration } from "../../clients/vscode/src/configuration";
import { sanitize } from "../../server/src/engine/settings";

/** config.jsonc and the editor's settings are checked against one schema, which the VS Code extension also uses. */
describe("settings schema", () => {
  it("describes every setting there is, and nothing else", () => {
    expect(Object.keys(settingsSchema.properties).sort()).toEqual(Object.keys(defaultSettings).sort());
    expect(settingsSchema.properties.severity.propertyNames.enum).toEqual(DiagnosticCodes);
  });

  it("keeps well-typed values and says, from the schema, what each rejected one must be", () => {
    const { values, issues } = sanitize({
      autoSelect: "yes",
      exempt: [1],
      ledgerPath: "../x.jsonl",
      contributor: { type: "robot" },
      identity: { name: "Ada", nickname: "A" },
      inlayHints: { enabled: "no" },
      codeLens: { enabled: false },
      colour: "blue",
    });
    expect(values).toEqual({ codeLens: { enabled: false } });
    expect(issues).toEqual([
      '"autoSelect" must be true or false.',
      '"exempt" must be a list of gitignore patterns.',
      '"ledgerPath" must be a workspace-relative path.',
      '"contributor" must be { "type": "human" | "ai" | "mixed" | "unknown", "modelId"?: string }.',
      '"identity" must be { "name"?: string, "email"?: string, "recordEmail"?: "plain" | "hash" | "omit" }.',
      '"inlayHints" must be { "enabled": true | false }.',
      'unknown setting "colour" (ignored).',
    ]);
  });

  it("a whole number is kept within its bounds; a fraction, a string or a number out of bounds is refused", () => {
    expect(sanitize({ circuitBreaker: { denials: 0, windowSeconds: 86400 } })).toEqual({
      values: { circuitBreaker: { denials: 0, windowSeconds: 86400 } },
      issues: [],
    });
    const must = '"circuitBreaker" must be { "denials": 0..1000, "windowSeconds": 1..86400 }.';
    for (const bad of [
      { denials: 2.5, windowSeconds: 60 },
      { denials: "5", windowSeconds: 60 },
      { denials: 5, windowSeconds: 0 },
      { denials: 1001, windowSeconds: 60 },
      { denials: 5 },
    ])
      expect(sanitize({ circuitBreaker: bad }), JSON.stringify(bad)).toEqual({ values: {}, issues: [must] });
  });

  it("a map keeps its good entries and names each bad key and value", () => {
    const { values, issues } = sanitize({ severity: { "out-of-scope": "warning", "no-such-code": "error", "stale-file": "loud" } });
    expect(values).toEqual({ severity: { "out-of-scope": "warning" } });
    expect(issues).toEqual([
      'unknown diagnostic code "no-such-code" in "severity".',
      '"severity.stale-file" must be one of error, warning, information, hint, off.',
    ]);
    expect(sanitize({ severity: ["error"] }).issues).toEqual(['"severity" must map diagnostic codes to "error" | "warning" | "information" | "hint" | "off".']);
  });

  it('an editor\'s empty field is not a value: "" where a string is optional is left out', () => {
    expect(sanitize({ identity: { name: "", email: "a@b.c" }, contributor: { type: "ai", modelId: "" } }).values).toEqual({
      identity: { email: "a@b.c" },
      contributor: { type: "ai" },
    });
  });

  it("VS Code's contributed settings are the schema's editor settings, with its enums, descriptions and the defaults", () => {
    const { properties } = contributedConfiguration();
    const keys = Object.keys(properties).filter((k) => k !== "intentLsp.trace.server");
    const expected = EDITOR_SETTINGS.flatMap((key) => {
      const node = settingsSchema.properties[key] as { properties?: object; propertyNames?: { enum: readonly string[] } };
      const names = node.propertyNames ? node.propertyNames.enum : Object.keys(node.properties ?? {});
      return names.map((name) => `intentLsp.${key}.${name}`);
    });
    expect(keys).toEqual(expected);
    expect(properties["intentLsp.contributor.type"]).toMatchObject({ enum: settingsSchema.properties.contributor.properties.type.enum, default: "human" });
    expect(properties["intentLsp.identity.recordEmail"]).toMatchObject({ enum: ["plain", "hash", "omit"], default: "hash" });
    expect(properties["intentLsp.severity.out-of-scope"]).toMatchObject({ enum: ["error", "warning", "information", "hint", "off"], default: "error" });
    expect(properties["intentLsp.severity.out-of-scope"]!.description).toMatch(/^An edit to a file outside the active intent's owned scope\. How each/);
  });
});
