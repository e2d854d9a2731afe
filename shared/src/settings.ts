import type { DiagnosticCode } from "./diagnosticCodes";

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
    "out-of-scope": "error",
    "no-active-intent": "warning",
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
  },
  inlayHints: { enabled: true },
  codeLens: { enabled: true },
  ledgerPath: ".orchestration/agent_trace.jsonl",
};

export const SETTINGS_SECTION = "intentLsp";

export const SEVERITIES: readonly Severity[] = ["error", "warning", "information", "hint", "off"];
export const RECORD_EMAIL: readonly RecordEmail[] = ["plain", "hash", "omit"];
export const CONTRIBUTOR_TYPES: readonly ContributorType[] = ["human", "ai", "mixed", "unknown"];

/**
 * What each setting an editor may set means, for editors' settings screens (the VS Code extension turns
 * these into its contributed configuration, so its descriptions and defaults cannot drift from the server's).
 * Only the editor's own settings: the workspace rules (autoSelect, exempt, ledgerPath) live in
 * `.orchestration/config.jsonc`, where the agent hooks and CI read them too.
 */
export const editorSettingDocs = {
  contributorType: "Who this editor's saves are attributed to in the ledger (the Agent Trace contributor type).",
  contributorModelId: "The model id recorded with this editor's saves, when they are an AI's (for example anthropic/claude-sonnet-4).",
  identityName: "The name recorded with this editor's saves (default: git's user.name for the workspace).",
  identityEmail: "The email recorded with this editor's saves (default: git's user.email for the workspace).",
  identityRecordEmail: "How the email is kept in the ledger: \"plain\", \"hash\" (sha256 of the lower-cased address) or \"omit\".",
  inlayHintsEnabled: "Show which intent and contributor wrote each line as inlay hints.",
  codeLensEnabled: "Show a CodeLens with the intent, edit count and files above each file.",
  severity: "How each intent-lsp diagnostic is shown; \"off\" hides it.",
} as const;

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
};
