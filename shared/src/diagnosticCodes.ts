/** Diagnostic codes published with source `intent-lsp` (docs/ARCHITECTURE.md "The language server's surface"). */
export const DiagnosticCodes = [
  "out-of-scope",
  "no-active-intent",
  "intent-not-in-progress",
  "stale-file",
  "untraced-change",
  /** `intent check` only: a changed line no record explains, in a file no in-progress intent owns. */
  "unowned-change",
  "claimed-elsewhere",
  "intent-schema",
  "ledger-unreadable",
  "settings-invalid",
] as const;

export type DiagnosticCode = (typeof DiagnosticCodes)[number];
export const DIAGNOSTIC_SOURCE = "intent-lsp";
