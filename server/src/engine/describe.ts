/**
 * Words for an attribution, shared by hover, CodeLens, inlay hints and `intent blame` so that every surface
 * says the same thing about the same line.
 */
import type { AdoptedLine, GitAuthor } from "./adoption";
import { isOutOfScopeEntry } from "./authorship";
import type { Catalogue } from "./intents/model";
import type { TraceEntry } from "./ledger/read";

/** "claude-sonnet-4-5" from "anthropic/claude-sonnet-4-5": the provider is noise in a one-line label. */
export function shortModel(modelId: string | undefined): string | undefined {
  return modelId?.split("/").pop();
}

/** Who, briefly: the model for AI lines, the person's name for a person's, else the contributor type. */
export function who(entry: TraceEntry): string {
  return shortModel(entry.contributor.modelId) ?? entry.contributor.name ?? entry.contributor.type;
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

/** "INT-001 (out of scope)": the intent a record was written under, with the mark every surface shows. */
export function intentMark(intentId: string | undefined, outOfScope: boolean): string {
  return `${intentId ?? "no intent"}${outOfScope ? " (out of scope)" : ""}`;
}

/** "INT-001 · claude-sonnet-4-5 · 2 h ago": the label of a block's CodeLens. */
export function blockLabel(entry: TraceEntry, now: number): string {
  return [intentMark(entry.intentId, isOutOfScopeEntry(entry)), who(entry), relativeTime(entry.timestamp, now)].join(" · ");
}

/** Longest "who" an inlay hint shows: a hint sits at the end of a code line and must not widen it. */
const HINT_WHO_MAX = 24;

/**
 * "INT-001 · claude-sonnet-4-5": the short label of a block's inlay hint. No time: it would disagree with a
 * CodeLens asked for at another moment, and the tooltip (`blockDetails`) says it.
 */
export function hintLabel(entry: TraceEntry): string {
  const name = who(entry);
  return [intentMark(entry.intentId, isOutOfScopeEntry(entry)), name.length > HINT_WHO_MAX ? `${name.slice(0, HINT_WHO_MAX - 1)}…` : name].join(" · ");
}

/** The details of a block (an inlay hint's tooltip): the intent, who exactly, when. */
export function blockDetails(entry: TraceEntry, catalogue: Catalogue, now: number): string {
  const intent = `${intentTitle(entry.intentId, catalogue)}${isOutOfScopeEntry(entry) ? " — recorded out of scope" : ""}`;
  return [intent, `${contributorText(entry)} · ${relativeTime(entry.timestamp, now)} (${entry.timestamp})`, `trace ${entry.recordId}`].join("\n");
}

export function intentTitle(intentId: string | undefined, catalogue: Catalogue): string {
  if (!intentId) return "no intent";
  const intent = catalogue.byId.get(intentId);
  return intent ? `${intent.id} — ${intent.name} (${intent.status})` : `${intentId} (not in active_intents.yaml)`;
}

/**
 * "ai · anthropic/claude-sonnet-4-5", "human · Ada Lovelace", "unknown · <why the editor could not credit it>",
 * or the bare type when the record names no one.
 */
export function contributorText(entry: TraceEntry): string {
  const c = entry.contributor;
  return c.modelId ? `${c.type} · ${c.modelId}` : c.name ? `${c.type} · ${c.name}` : c.why ? `${c.type} · ${c.why}` : c.type;
}

/**
 * The tool that wrote a record, when it is not intent-lsp itself: another Agent Trace writer, or git-ai's
 * notes turned into records by `intent import git-ai` ("git-ai note of a1b2c3d4", the commit it is attached to).
 */
export function sourceText(entry: Pick<TraceEntry, "toolName" | "revision">): string | undefined {
  const tool = entry.toolName;
  if (tool === undefined || tool === "intent-lsp") return undefined;
  return tool === "git-ai" && entry.revision ? `git-ai note of ${entry.revision.slice(0, 8)}` : tool;
}

/**
 * Where a line came from when its owner wrote it in another path (engine/lineage.ts): "moved by <who> from
 * `old`" when the move was recorded as it happened, else "from `old`", the path set in `code` (backquotes in
 * markdown). Undefined for a line written here.
 */
export function provenanceText(attribution: { entry: TraceEntry; movedBy?: TraceEntry }, path: string, code: (text: string) => string): string | undefined {
  const { entry, movedBy } = attribution;
  if (entry.path === path) return undefined;
  return movedBy
    ? `moved by ${contributorText(movedBy)} from ${code(entry.path)} (${movedBy.timestamp})`
    : `from ${code(entry.path)} (renamed, moved or copied here)`;
}

/**
 * A line kept from before the adoption point (engine/adoption.ts), in words: what it is, and who git says
 * wrote it ("Ada Lovelace (git) · 2024-05-01"), marked as git's: the ledger did not see it written.
 */
export function beforeAdoptionWords(adopted: AdoptedLine, now: number): { what: string; who: string | undefined } {
  const a = adopted.author;
  return {
    what: "no ledger record covers this line; it is as it was when the repository took up intent-lsp.",
    who: a ? `${gitAuthorLabel(a)} · ${relativeTime(a.date, now)} (commit ${a.commit.slice(0, 12)})` : undefined,
  };
}

/** "Ada Lovelace (git)": an author git names, marked as git's, on one line. */
export function gitAuthorLabel(author: GitAuthor): string {
  return `${author.name.replace(/[\u0000-\u001f\u007f]+/g, " ")} (git)`;
}
