import { MarkupKind, type Hover, type Position } from "vscode-languageserver";
import { isOutOfScopeEntry } from "../engine/authorship";
import { contributorText, intentTitle, provenanceText, relativeTime } from "../engine/describe";
import { inheritedConstraints } from "../engine/intents/load";
import type { Intent } from "../engine/intents/model";
import { INTENTS_FILE } from "../engine/workspaceFiles";
import type { TrackedDocument } from "./documents";

/** docs/ARCHITECTURE.md "Hover → answer": who wrote this line, under which intent; or, in active_intents.yaml, an intent's footprint. */
export function hover(doc: TrackedDocument, position: Position, now: number, markdown = true): Hover | null {
  const h = markdownHover(doc, position, now);
  if (!h || markdown) return h;
  // clients that asked for plaintext (eglot) get the same words without the markup
  const value = (h.contents as { value: string }).value.replace(/\*\*/g, "").replace(/`/g, "");
  return { ...h, contents: { kind: MarkupKind.PlainText, value } };
}

function markdownHover(doc: TrackedDocument, position: Position, now: number): Hover | null {
  const ctx = doc.ctx;
  if (!ctx || doc.path === undefined || position.line >= doc.doc.lineCount) return null;
  if (doc.path === INTENTS_FILE) return intentHover(doc, position, now);

  const owner = doc.owner(position.line);
  // a file the ledger has never recorded (nor this server's save of it, which the ledger may not have
  // been read back for yet): nothing to say, and the language's own hover stands alone
  if (owner.kind === "untraced" && !ctx.ledger.hasFile(doc.path) && !doc.attributedBlocks().length) return null;
  const lines: string[] = [];
  if (owner.kind === "edited") {
    const v = doc.verdict();
    const under = v?.kind === "allowed" ? ` under ${intentTitle(v.intent.id, ctx.rules.catalogue)}${v.auto ? " (auto-selected)" : ""}` : "";
    lines.push(`**Edited, not saved yet.** It will be recorded${under} when you save.`);
  } else if (owner.kind === "untraced") {
    lines.push("**Untraced:** no ledger record covers this line.");
  } else if (owner.kind === "indexing") {
    lines.push("**Indexing the ledger…** Who wrote this line is shown as soon as the trace ledger has been read.");
  } else {
    const { entry, exact, reformattedBy } = owner.attribution;
    lines.push(`**${intentTitle(entry.intentId, ctx.rules.catalogue)}**`);
    if (isOutOfScopeEntry(entry)) lines.push("", `⚠ recorded outside ${entry.intentId ?? "its intent"}'s scope`);
    lines.push("");
    lines.push(`${contributorText(entry)} · ${relativeTime(entry.timestamp, now)} (${entry.timestamp})`);
    const provenance = provenanceText(owner.attribution, doc.path);
    if (provenance) lines.push("", provenance);
    if (reformattedBy)
      lines.push(
        "",
        `reformatted by ${contributorText(reformattedBy)} · ${relativeTime(reformattedBy.timestamp, now)} (whitespace only; the line is still ${contributorText(entry)}'s)`,
      );
    lines.push("");
    lines.push(
      `trace \`${entry.recordId}\`${entry.toolName ? ` · ${entry.toolName}` : ""}${exact ? "" : " · position as recorded (the record has no content hash to verify)"}`,
    );
    const intent = entry.intentId ? ctx.rules.catalogue.byId.get(entry.intentId) : undefined;
    const constraints = intent ? inheritedConstraints(intent, ctx.rules.catalogue.byId) : [];
    if (constraints.length) lines.push("", "Constraints:", ...constraints.map((c) => `- ${c}`));
  }
  return { contents: { kind: MarkupKind.Markdown, value: lines.join("\n") }, range: lineRange(doc, position.line) };
}

function intentHover(doc: TrackedDocument, position: Position, now: number): Hover | null {
  const ctx = doc.ctx!;
  const offset = doc.doc.offsetAt(position);
  const intent = ctx.rules.catalogue.intents.find((i) => i.span.start <= offset && offset <= i.span.end);
  if (!intent) return null;
  return { contents: { kind: MarkupKind.Markdown, value: intentFootprint(intent, doc, now).join("\n") } };
}

function intentFootprint(intent: Intent, doc: TrackedDocument, now: number): string[] {
  const ledger = doc.ctx!.ledger;
  const files = ledger.filesFor(intent.id).sort();
  const last = ledger.lastChange(intent.id);
  const out = [`**${intent.id} — ${intent.name}** (${intent.status})`, "", `Scope: ${intent.ownedScope.map((g) => `\`${g}\``).join(", ")}`, ""];
  out.push(
    `${ledger.editCount(intent.id)} recorded edits in ${files.length} files${last ? ` · last change ${relativeTime(last.timestamp, now)} by ${contributorText(last)} in \`${last.path}\`` : ""}`,
  );
  if (files.length) out.push("", ...files.slice(0, 20).map((f) => `- \`${f}\``), ...(files.length > 20 ? [`- … and ${files.length - 20} more`] : []));
  return out;
}

function lineRange(doc: TrackedDocument, line: number) {
  return { start: { line, character: 0 }, end: { line, character: doc.lineText(line).length } };
}
