import { buildRecord, type BuildRecordInput } from "../../server/src/engine/ledger/record";

/**
 * One ledger line: the record intent-lsp writes for an agent's edit (Claude Sonnet, one session, in scope of
 * INT-001, lines 1–1 of `path`), with whatever a test sets in `overrides`.
 */
export function agentRecordLine(path: string, content: string, overrides: Partial<BuildRecordInput> = {}): string {
  return JSON.stringify(
    buildRecord({
      path,
      content,
      ranges: [{ start_line: 1, end_line: 1 }],
      contributor: { type: "ai", modelId: "anthropic/claude-sonnet-4-5" },
      sessionId: "s",
      toolVersion: "0.1.0",
      mutationClass: "INTENT_EVOLUTION",
      preHash: null,
      scope: "PASS",
      intentId: "INT-001",
      ...overrides,
    }),
  );
}
