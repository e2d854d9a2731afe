/**
 * Words for an attribution, shared by hover, CodeLens, inlay hints and `intent blame` so that every surface
 * says the same thing about the same line.
 */
import type { Catalogue } from "./intents/model";
import type { TraceEntry } from "./ledger/read";

/** "claude-sonnet-4-5" from "anthropic/claude-sonnet-4-5": the provider is noise in a one-line label. */
export function shortModel(modelId: string | undefined): string | undefined {
  return modelId?.split("/").pop();
}

/** Who, briefly: the model for AI lines, else the contributor type. */
export function who(entry: TraceEntry): string {
  return shortModel(entry.contributor.modelId) ?? entry.contributor.type;
}

export function relativeTime(timestamp: string, now: number): string {
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return "at an unknown time";
  const s = Math.round((now - t) / 1000);
  if (s < 45) return "just now";
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d < 60) return `${d} d ago`;
  return timestamp.slice(0, 10);
}

/** "INT-001 · claude-sonnet-4-5 · 2 h ago": the label of a CodeLens or inlay hint. */
export function blockLabel(entry: TraceEntry, now: number): string {
  const intent = `${entry.intentId ?? "no intent"}${entry.scope === "OUT_OF_SCOPE" ? " (out of scope)" : ""}`;
  return [intent, who(entry), relativeTime(entry.timestamp, now)].join(" · ");
}

export function intentTitle(intentId: string | undefined, catalogue: Catalogue): string {
  if (!intentId) return "no intent";
  const intent = catalogue.byId.get(intentId);
  return intent ? `${intent.id} — ${intent.name} (${intent.status})` : `${intentId} (not in active_intents.yaml)`;
}

export function contributorText(entry: TraceEntry): string {
  const c = entry.contributor;
  return c.modelId ? `${c.type} · ${c.modelId}` : c.type;
}
