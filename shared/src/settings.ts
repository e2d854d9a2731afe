import { DiagnosticCodes, type DiagnosticCode } from "./diagnosticCodes";

export type Severity = "error" | "warning" | "information" | "hint" | "off";
export type ContributorType = "human" | "ai" | "mixed" | "unknown";

/**
 * Settings, merged as defaults < `.orchestration/config.jsonc` < client settings (section `intentLsp`).
 * Every field is optional in the sources; `defaultSettings` fills the rest.
 */
export interface Settings {
  /** With nothing selected, edits in a file owned by exactly one IN_PROGRESS intent count under it. */
  autoSelect: boolean;
  /** Paths exempt from scope checks besides the `.intentignore` files (gitignore syntax). */
  exempt: string[];
  /** Who the editor's saves are attributed to in the ledger. */
  contributor: { type: ContributorType; modelId?: string };
  /**
   * The person named in a human save's record (docs/LEDGER.md "The person"): `name` and `email` default to
   * git's `user.name` / `user.email` for the workspace; `recordEmail` says how the email is kept.
   */
  identity: Identity;
  /** Per-code severity; "off" hides the diagnostic. */
  severity: Record<DiagnosticCode, Severity>;
  inlayHints: { enabled: boolean };
  codeLens: { enabled: boolean };
  /** Ledger location, workspace-relative. */
  ledgerPath: string;
  /**
   * An agent session denied `denials` times within `windowSeconds` is told to stop and ask the person
   * (engine/agent/circuitBreaker.ts); `denials: 0` turns it off.
   */
  circuitBreaker: { denials: number; windowSeconds: number };
}

/** How a person's email is kept in the ledger: as written, only its hash, or not at all. */
export type RecordEmail = "plain" | "hash" | "omit";

export interface Identity {
  name?: string;
  email?: string;
  recordEmail: RecordEmail;
}

export const defaultSettings: Settings = {
  autoSelect: true,
  // the rule files govern scope and are reviewed as rules: the root .intentignore is one, like .orchestration/
  exempt: [".orchestration/**", "/.intentignore"],
  contributor: { type: "human" },
  identity: { recordEmail: "hash" },
  severity: {
    // the three codes of a write the agent gate denies: errors, so the editor and `intent check` fail what
    // the gate denies (docs/ARCHITECTURE.md "One verdict")
    "out-of-scope": "error",
    "no-active-intent": "error",
    "intent-not-in-progress": "error",
    "stale-file": "warning",
    "untraced-change": "information",
    "unowned-change": "error",
    "claimed-elsewhere": "warning",
    "intent-schema": "error",
    "ledger-unreadable": "warning",
    "settings-invalid": "error",
    "intent-drift": "information",
    "criterion-failed": "error",
    "findings-not-shown": "information",
  },
  inlayHints: { enabled: true },
  codeLens: { enabled: true },
  ledgerPath: ".orchestration/agent_trace.jsonl",
  circuitBreaker: { denials: 5, windowSeconds: 60 },
};

export const SETTINGS_SECTION = "intentLsp";

export const SEVERITIES: readonly Severity[] = ["error", "warning", "information", "hint", "off"];
export const RECORD_EMAIL: readonly RecordEmail[] = ["plain", "hash", "omit"];
export const CONTRIBUTOR_TYPES: readonly ContributorType[] = ["human", "ai", "mixed", "unknown"];

/**
 * A node of the settings schema: the subset of JSON Schema (draft-07) the settings need. `format:
 * "workspace-relative-path"` is the one format of our own (no `..`, not absolute, one line); `title` names
 * what a list or map holds, for messages ("a list of gitignore patterns").
 */
export interface SettingSchema {
  type: "boolean" | "string" | "integer" | "array" | "object";
  /** For an integer: the least and the greatest value allowed. */
  minimum?: number;
  maximum?: number;
  description?: string;
  title?: string;
  enum?: readonly string[];
  format?: "workspace-relative-path";
  items?: SettingSchema;
  properties?: Record<string, SettingSchema>;
  required?: readonly string[];
  /** false: no other keys; a schema: a map whose values all follow it (with `propertyNames` for its keys). */
  additionalProperties?: boolean | SettingSchema;
  propertyNames?: SettingSchema;
}

/**
 * The one schema of the settings: `.orchestration/config.jsonc` and the editor's `intentLsp` section are
 * validated against it (engine/settings.ts), and the VS Code extension's contributed settings are made from
 * it (clients/vscode/src/configuration.ts), so their types, enums and descriptions cannot drift apart.
 */
export const settingsSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    autoSelect: { type: "boolean", description: "With nothing selected, edits in a file owned by exactly one IN_PROGRESS intent count under it." },
    exempt: {
      type: "array",
      items: { type: "string", title: "gitignore patterns" },
      description: "Paths exempt from scope checks besides the .intentignore files (gitignore syntax); they add to the defaults.",
    },
    ledgerPath: { type: "string", format: "workspace-relative-path", description: "Where the ledger is, workspace-relative." },
    contributor: {
      type: "object",
      required: ["type"],
      additionalProperties: false,
      properties: {
        type: {
          type: "string",
          enum: CONTRIBUTOR_TYPES,
          description: "Who this editor's saves are attributed to in the ledger (the Agent Trace contributor type).",
        },
        modelId: {
          type: "string",
          description: "The model id recorded with this editor's saves, when they are an AI's (for example anthropic/claude-sonnet-4).",
        },
      },
    },
    identity: {
      type: "object",
      additionalProperties: false,
      properties: {
        name: { type: "string", description: "The name recorded with this editor's saves (default: git's user.name for the workspace)." },
        email: { type: "string", description: "The email recorded with this editor's saves (default: git's user.email for the workspace)." },
        recordEmail: {
          type: "string",
          enum: RECORD_EMAIL,
          description: 'How the email is kept in the ledger: "plain", "hash" (sha256 of the lower-cased address) or "omit".',
        },
      },
    },
    severity: {
      type: "object",
      propertyNames: { type: "string", title: "diagnostic codes", enum: DiagnosticCodes },
      additionalProperties: { type: "string", enum: SEVERITIES },
      description: 'How each intent-lsp diagnostic is shown; "off" hides it.',
    },
    inlayHints: {
      type: "object",
      required: ["enabled"],
      additionalProperties: false,
      properties: { enabled: { type: "boolean", description: "Show which intent and contributor wrote each line as inlay hints." } },
    },
    codeLens: {
      type: "object",
      required: ["enabled"],
      additionalProperties: false,
      properties: { enabled: { type: "boolean", description: "Show a CodeLens with the intent, edit count and files above each file." } },
    },
    circuitBreaker: {
      type: "object",
      required: ["denials", "windowSeconds"],
      additionalProperties: false,
      description: "An agent session denied this many times within the window is told to stop and ask the person; the next allowed call resets it.",
      properties: {
        denials: { type: "integer", minimum: 0, maximum: 1000, description: "Denials within the window that stop the session (0: never)." },
        windowSeconds: { type: "integer", minimum: 1, maximum: 86400, description: "The window, in seconds." },
      },
    },
  },
} as const satisfies SettingSchema;

/**
 * The settings an editor may set (section `intentLsp`): how things are shown and who the editor's saves are
 * attributed to. The workspace rules (autoSelect, exempt, ledgerPath) live only in
 * `.orchestration/config.jsonc`, where the agent hooks and CI read them too.
 */
export const EDITOR_SETTINGS = ["contributor", "identity", "inlayHints", "codeLens", "severity"] as const satisfies readonly (keyof Settings)[];

/** One line per diagnostic code, for settings screens that list the severities. */
export const diagnosticCodeDocs: Record<DiagnosticCode, string> = {
  "out-of-scope": "An edit to a file outside the active intent's owned scope.",
  "no-active-intent": "An edit with no intent selected (and none auto-selected).",
  "intent-not-in-progress": "An edit under an intent that is not IN_PROGRESS.",
  "stale-file": "The file changed on disk since its last recorded content.",
  "untraced-change": "Lines changed with no ledger record explaining them.",
  "unowned-change": "intent check only: a changed line no record explains, in a file no in-progress intent owns.",
  "claimed-elsewhere": "Another live session is editing the same file or holds the same intent.",
  "intent-schema": "A problem in .orchestration/active_intents.yaml.",
  "ledger-unreadable": "Lines of the ledger that cannot be read.",
  "settings-invalid": "A problem in .orchestration/config.jsonc.",
  "intent-drift": "On an intent in active_intents.yaml: lines in its scope changed since it started, or after it was completed, not under it.",
  "criterion-failed": "On an acceptance criterion in active_intents.yaml: its command failed the last time it was verified in this editor.",
  "findings-not-shown": "Where a file's findings stop being shown: the editor is sent a file's first 1,000; intent check lists them all.",
};
