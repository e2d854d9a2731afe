/** Diagnostic codes published with source `intent-lsp` (DESIGN §4). */
export const DiagnosticCodes = [
  "out-of-scope",
  "no-active-intent",
  "intent-not-in-progress",
  "stale-file",
  "untraced-change",
  "unowned-change",
  "claimed-elsewhere",
  "intent-schema",
  "ledger-unreadable",
  "settings-invalid",
] as const;

export type DiagnosticCode = (typeof DiagnosticCodes)[number];
export const DIAGNOSTIC_SOURCE = "intent-lsp";
