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
  /** On an intent in active_intents.yaml: lines in its scope changed since it started (or after it completed) not under it. */
  "intent-drift",
  /** On an acceptance criterion in active_intents.yaml: its command failed when the person last verified it. */
  "criterion-failed",
  /** Where a document's diagnostics stop being shown: it has more than the editor is sent (lsp/diagnostics.ts). */
  "findings-not-shown",
] as const;

export type DiagnosticCode = (typeof DiagnosticCodes)[number];
export const DIAGNOSTIC_SOURCE = "intent-lsp";
