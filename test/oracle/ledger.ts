import { existsSync, readFileSync } from "node:fs";

/**
 * The ledger as the oracle inspects it: every record appended during a run, with the lines each one claims.
 * Read straight from `.orchestration/agent_trace.jsonl`, as any Agent Trace consumer would.
 */

export interface Claim {
  path: string;
  type: string;
  modelId?: string;
  intentId?: string;
  /** 1-based, inclusive. */
  ranges: [number, number][];
}

export interface LedgerRecord {
  id: string;
  /** 1-based line of the ledger. */
  line: number;
  claims: Claim[];
  postHash?: string;
  /** Lines (1-based, of the content after the record) it names as moved in from other files (`moved_lines`), by path. */
  movedIn: { path: string; lines: number[] }[];
}

export class LedgerWatch {
  /** Ids already read: a rebase or a merge rewrites the file, other branches' records land in the middle. */
  private readonly seen = new Set<string>();

  constructor(readonly file: string) {}

  private lines(): string[] {
    if (!existsSync(this.file)) return [];
    return readFileSync(this.file, "utf8")
      .split("\n")
      .filter((l) => l.trim());
  }

  /** Records not read before (appended since the last call, or brought in by git). */
  readNew(): LedgerRecord[] {
    const fresh = this.lines()
      .map((text, k) => parseRecord(text, k + 1))
      .filter((r) => !this.seen.has(r.id));
    for (const r of fresh) this.seen.add(r.id);
    return fresh;
  }
}

function parseRecord(text: string, line: number): LedgerRecord {
  const r = JSON.parse(text) as {
    id: string;
    files?: {
      path: string;
      conversations?: {
        contributor?: { type?: string; model_id?: string };
        ranges?: { start_line: number; end_line: number }[];
        related?: { type: string; url: string }[];
      }[];
    }[];
    metadata?: Record<string, MovedDetails & { post_hash?: string | null; intent_id?: string | null; other_files?: MovedDetails[] }>;
  };
  const ours = r.metadata?.["dev.intent-lsp"];
  const claims: Claim[] = [];
  for (const f of r.files ?? []) {
    for (const c of f.conversations ?? []) {
      const intentUrl = c.related?.find((x) => x.type === "intent")?.url;
      const intentId = intentUrl ? decodeURIComponent(intentUrl.replace(/^urn:intent:/, "")) : (ours?.intent_id ?? undefined);
      claims.push({
        path: f.path,
        type: c.contributor?.type ?? "unknown",
        ...(c.contributor?.model_id ? { modelId: c.contributor.model_id } : {}),
        ...(intentId ? { intentId } : {}),
        ranges: (c.ranges ?? []).map((x) => [x.start_line, x.end_line] as [number, number]),
      });
    }
  }
  // files[0]'s details are the metadata's top level, the others' are other_files in order
  const details = [ours, ...(ours?.other_files ?? [])];
  const movedIn = (r.files ?? []).flatMap((f, i) => {
    const lines = (details[i]?.moved_lines ?? []).flatMap((m) => m.carried.flatMap(([, at, n]) => Array.from({ length: n }, (_, k) => at + k)));
    return lines.length ? [{ path: f.path, lines }] : [];
  });
  return { id: r.id, line, claims, ...(ours?.post_hash ? { postHash: ours.post_hash } : {}), movedIn };
}

interface MovedDetails {
  moved_lines?: { from: string; carried: [number, number, number][] }[];
}
