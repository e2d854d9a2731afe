/**
 * What the server says about a line, read from the two surfaces users see: the hover's markdown
 * (server/src/lsp/hover.ts) and a row of `intent blame --json` (server/src/engine/blame.ts).
 */

export type Seen =
  /** `confidence`: how sure blame says it is (engine/confidence.ts); hover's answers do not carry it */
  | { kind: "traced"; type: string; modelId?: string; intentId?: string; traceId?: string; confidence?: string }
  /** "Edited, not saved yet" */
  | { kind: "edited" }
  | { kind: "untraced" }
  /** anything else (no hover, "indexing the ledger…", a shape this parser does not know) */
  | { kind: "other"; text: string };

const CONTRIBUTOR_LINE = /^(human|ai|mixed|unknown)(?: · |$)/;
const INTENT_HEADING = /^\*\*([A-Z]+-\d{3,})\b/;
const TRACE = /trace `([^`]+)`/;

export function parseHover(value: string | undefined): Seen {
  if (value === undefined) return { kind: "other", text: "(no hover)" };
  if (/Edited, not saved/i.test(value)) return { kind: "edited" };
  if (/\bUntraced\b/.test(value)) return { kind: "untraced" };
  const lines = value.split("\n").map((l) => l.trim());
  const who = lines.find((l) => CONTRIBUTOR_LINE.test(l));
  if (!who) return { kind: "other", text: value.slice(0, 200) };
  // "ai · anthropic/claude-sonnet-4-5 · just now (…)" or "human · just now (…)"
  const parts = who.split(" · ");
  const type = parts[0]!;
  // "human · Ada Lovelace · …": a person's name, which blame gives as `person`, not a model
  const modelId = parts.length >= 3 && type !== "human" ? parts[1] : undefined;
  const heading = lines.find((l) => l.startsWith("**"));
  const intentId = heading ? INTENT_HEADING.exec(heading)?.[1] : undefined;
  const traceId = TRACE.exec(value)?.[1];
  return { kind: "traced", type, ...(modelId ? { modelId } : {}), ...(intentId ? { intentId } : {}), ...(traceId ? { traceId } : {}) };
}

export interface BlameRow {
  line: number;
  kind: string;
  intent?: string;
  contributor?: string;
  model?: string;
  traceId?: string;
  confidence?: string;
}

export function parseBlameRow(row: BlameRow | undefined): Seen {
  if (!row) return { kind: "other", text: "(no blame row)" };
  if (row.kind === "edited") return { kind: "edited" };
  if (row.kind === "untraced") return { kind: "untraced" };
  if (row.kind !== "traced" || !row.contributor) return { kind: "other", text: JSON.stringify(row).slice(0, 200) };
  return {
    kind: "traced",
    type: row.contributor,
    ...(row.model ? { modelId: row.model } : {}),
    ...(row.intent ? { intentId: row.intent } : {}),
    ...(row.traceId ? { traceId: row.traceId } : {}),
    ...(row.confidence ? { confidence: row.confidence } : {}),
  };
}

export function seenLabel(s: Seen): string {
  switch (s.kind) {
    case "traced":
      return `${s.type}${s.modelId ? `:${s.modelId}` : ""}@${s.intentId ?? "no intent"}`;
    case "other":
      return `other(${s.text.replace(/\s+/g, " ").slice(0, 60)})`;
    default:
      return s.kind;
  }
}
