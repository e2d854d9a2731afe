import { existsSync, readFileSync } from "node:fs";
import { fileHash } from "../../server/src/engine/hashing";

/**
 * FALLBACK, for a server build that does not send `intent/saveProcessed` (the oracle can be pointed at
 * another build of the server to compare it). Delete this file, and the one call to it in editorDriver.ts,
 * once every build the oracle runs against sends it.
 *
 * Without the notification, "the save was handled" is inferred: the number of ledger lines this server
 * appends for a save (0 or 1, by its rules in server/src/lsp/save.ts: nothing when the content equals the
 * baseline or its hash is already recorded for the file), then a request that reads the ledger through the
 * server, which runs after the save's own ledger read.
 */
export function expectedSaveRecords(ledgerFile: string, path: string, content: string, baseline: string): number {
  const hash = fileHash(content);
  if (hash === fileHash(baseline)) return 0;
  return recordedPostHashes(ledgerFile, path).has(hash) ? 0 : 1;
}

function recordedPostHashes(ledgerFile: string, path: string): Set<string> {
  const out = new Set<string>();
  if (!existsSync(ledgerFile)) return out;
  for (const line of readFileSync(ledgerFile, "utf8").split("\n")) {
    if (!line.includes(path)) continue;
    try {
      const r = JSON.parse(line) as { files?: { path: string }[]; metadata?: Record<string, { post_hash?: string }> };
      const hash = r.metadata?.["dev.intent-lsp"]?.post_hash;
      if (hash && r.files?.some((f) => f.path === path)) out.add(hash);
    } catch {
      /* not a record */
    }
  }
  return out;
}
