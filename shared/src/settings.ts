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
  /** Per-code severity; "off" hides the diagnostic. */
  severity: Record<DiagnosticCode, Severity>;
  inlayHints: { enabled: boolean };
  codeLens: { enabled: boolean };
  /** Ledger location, workspace-relative. */
  ledgerPath: string;
}

export const defaultSettings: Settings = {
  autoSelect: true,
  exempt: [".orchestration/**"],
  contributor: { type: "human" },
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
  },
  inlayHints: { enabled: true },
  codeLens: { enabled: true },
  ledgerPath: ".orchestration/agent_trace.jsonl",
};

export const SETTINGS_SECTION = "intentLsp";
