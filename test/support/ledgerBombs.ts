/**
 * Foreign ledger records of a few hundred bytes each that claim tens of millions of lines for `path`: in
 * `line_count`, a `carried` run, a `reformatted` run, a range. One line of JSON each; the first is the newest, so a reader that replays the newest map meets it.
 */
export function bombRecords(path: string): { id: string; line: string }[] {
  const record = (id: string, minute: number, ours: Record<string, unknown>, ranges: { start_line: number; end_line: number }[]) => ({
    id,
    line: JSON.stringify({
      version: "0.1.0",
      id,
      timestamp: `2099-01-01T00:${String(minute).padStart(2, "0")}:00Z`,
      tool: { name: "other-tool", version: "1.0.0" },
      files: [{ path, conversations: [{ contributor: { type: "ai", model_id: "acme/bomber" }, ranges }] }],
      metadata: { "dev.intent-lsp": { pre_hash: null, post_hash: `sha256:${"0".repeat(64)}`, ...ours } },
    }),
  });
  return [
    record("00000000-0000-4000-8000-000000000001", 5, { line_count: 1e8, carried: [] }, [{ start_line: 1, end_line: 1 }]),
    record("00000000-0000-4000-8000-000000000002", 2, { line_count: 1e8, carried: [[1, 1, 99_999_999]] }, [{ start_line: 100_000_000, end_line: 100_000_000 }]),
    record("00000000-0000-4000-8000-000000000003", 3, { line_count: 90_000_000, carried: [[1, 1, 90_000_000]], reformatted: [[1, 90_000_000]] }, []),
    record("00000000-0000-4000-8000-000000000004", 4, { line_count: 10, carried: [[1, 1, 9]] }, [{ start_line: 10, end_line: 99_000_000 }]),
  ];
}
