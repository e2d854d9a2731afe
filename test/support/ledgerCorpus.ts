/** Ledger lines of every shape the reader meets: every dialect's fixtures, our own records, and broken lines. */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { buildRecord } from "../../server/src/engine/ledger/record";

const fixtures = join(__dirname, "../fixtures/agent-trace");

/** One of our own records (buildRecord), for `src/a.ts` unless told otherwise, at a fixed time and id. */
export function ours(opts: { path?: string; intent?: string | null; ranges?: [number, number][]; deleted?: boolean } = {}): Record<string, any> {
  return buildRecord({
    path: opts.path ?? "src/a.ts",
    content: opts.deleted ? null : "a\nb\nc\nd\n",
    ranges: opts.deleted ? [] : (opts.ranges ?? [[1, 2]]).map(([start_line, end_line]) => ({ start_line, end_line })),
    contributor: { type: "ai", modelId: "openai/gpt-5" },
    sessionId: "s",
    toolVersion: "0.1.0",
    mutationClass: opts.deleted ? "FILE_DELETION" : "INTENT_EVOLUTION",
    preHash: null,
    scope: "PASS",
    intentId: opts.intent === undefined ? "INT-001" : opts.intent,
    now: new Date("2026-02-03T04:05:06.789Z"),
    id: "00000000-0000-4000-a000-000000000001",
  }) as unknown as Record<string, any>;
}

/** Lines of every shape the reader knows, and shapes it must reject or half-accept. */
export function corpus(): string[] {
  const lines = readdirSync(fixtures)
    .filter((n) => n.endsWith(".jsonl"))
    .flatMap((n) => readFileSync(join(fixtures, n), "utf8").split("\n"));
  const edited = (f: (r: Record<string, any>) => void, base = ours()) => {
    const r = structuredClone(base);
    f(r);
    return JSON.stringify(r);
  };
  lines.push(
    JSON.stringify(ours()),
    JSON.stringify(ours({ intent: null })),
    JSON.stringify(
      ours({
        ranges: [
          [1, 1],
          [3, 4],
        ],
      }),
    ),
    JSON.stringify(ours({ deleted: true })),
    edited((r) => r.files.push({ ...r.files[0], path: "src/b.ts" })),
    edited((r) => r.files.push({ ...r.files[0], path: "src/a.ts" })),
    edited((r) => r.files.unshift("not a file")),
    edited((r) => (r.files[0].path = "../outside.ts")),
    edited((r) => (r.files[0].path = ".shell-history")),
    edited((r) => (r.files[0].conversations[0].ranges[0].start_line = 0)),
    edited((r) => (r.files[0].conversations[0].ranges = "none")),
    edited((r) => (r.files[0].conversations = {})),
    edited((r) => delete r.files[0].conversations),
    edited((r) => r.files[0].conversations.push(null, { ranges: [] })),
    edited((r) => (r.metadata["dev.intent-lsp"].post_hash = 42)),
    edited((r) => (r.metadata["dev.intent-lsp"].post_hash = null)),
    edited((r) => (r.metadata = "none")),
    edited((r) => (r.timestamp = 17)),
    edited((r) => (r.version = "1.0")),
    edited((r) => (r.intent_id = "INT-321")),
    edited((r) => (r.related = [{ type: "intent", url: "urn:intent:INT-555" }]), ours({ intent: null })),
    edited((r) => (r.files[0].conversations[0].related = [{ type: "intent", value: "INT-444" }]), ours({ intent: null })),
    edited((r) => (r.files[0].relative_path = r.files[0].path) && delete r.files[0].path),
    '{"version":"0.1.0","files":[]}',
    '{"files":[{"path":"x.ts"}]}',
    "[1,2,3]",
    "not json",
    '{"version":"0.1.0","files":[{"path":"x.ts","conversations":[{"ranges":[{"start_line":1,"end_line":1}]}]}]',
    "",
    "   ",
  );
  return lines;
}
