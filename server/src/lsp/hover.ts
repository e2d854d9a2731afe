import { MarkupKind, type Hover, type Position } from "vscode-languageserver";
import { isOutOfScopeEntry } from "../engine/authorship";
import type { AdoptedLine } from "../engine/adoption";
import { confidenceOf } from "../engine/confidence";
import { beforeAdoptionWords, contributorText, intentTitle, provenanceText, relativeTime, sourceText } from "../engine/describe";
import { inheritedConstraints } from "../engine/intents/load";
import type { Intent } from "../engine/intents/model";
import { INTENTS_FILE } from "../engine/workspaceFiles";
import type { TrackedDocument } from "./documents";

/** docs/ARCHITECTURE.md "Hover → answer": who wrote this line, under which intent; or, in active_intents.yaml, an intent's footprint. */
export function hover(doc: TrackedDocument, position: Position, now: number, markdown = true): Hover | null {
  return hoverAt(doc, position, now, markdown ? MARKDOWN : PLAIN);
}

/** The markup the words are set in: clients that asked for plaintext (eglot) get the same words without it. */
interface Markup {
  kind: MarkupKind;
  strong(text: string): string;
  code(text: string): string;
  /** Text from the repository's history (a git author's name) shown as it is, never read as markup. */
  escape(text: string): string;
}
const MARKDOWN: Markup = {
  kind: MarkupKind.Markdown,
  strong: (t) => `**${t}**`,
  code: (t) => `\`${t}\``,
  // what starts markup (emphasis, code, links, images, HTML, headings, tables): a name cannot become a link
  escape: (t) => t.replace(/[\\`*_[\]<>#|~!]/g, (c) => `\\${c}`),
};
// the words themselves (a glob's `**`, a name's backquote) are kept: only the markup around them goes
const PLAIN: Markup = { kind: MarkupKind.PlainText, strong: (t) => t, code: (t) => t, escape: (t) => t };

function hoverAt(doc: TrackedDocument, position: Position, now: number, m: Markup): Hover | null {
  const ctx = doc.ctx;
  if (!ctx || doc.path === undefined || position.line >= doc.doc.lineCount) return null;
  if (doc.path === INTENTS_FILE) return intentHover(doc, position, now, m);

  const owner = doc.owner(position.line);
  // a file the ledger has never recorded (nor this server's save of it, which the ledger may not have
  // been read back for yet), in a repository with no adoption point: nothing to say, and the language's own
  // hover stands alone. With one, an untraced line is one changed since adoption: worth saying
  if (owner.kind === "untraced" && !ctx.ledger.hasFile(doc.path) && !doc.attributedBlocks().length && !doc.adoptionKnown) return null;
  const lines: string[] = [];
  if (owner.kind === "edited") {
    const v = doc.verdict();
    const under = v?.kind === "allowed" ? ` under ${intentTitle(v.intent.id, ctx.rules.catalogue)}${v.auto ? " (auto-selected)" : ""}` : "";
    lines.push(`${m.strong("Edited, not saved yet.")} It will be recorded${under} when you save.`);
  } else if (owner.kind === "untraced") {
    lines.push(`${m.strong("Untraced:")} no ledger record covers this line.`);
  } else if (owner.kind === "beforeAdoption") {
    lines.push(beforeAdoptionText(owner.adopted, now, m));
  } else if (owner.kind === "indexing") {
    lines.push(`${m.strong("Indexing the ledger…")} Who wrote this line is shown as soon as the trace ledger has been read.`);
  } else {
    const { entry, exact, reformattedBy } = owner.attribution;
    lines.push(m.strong(intentTitle(entry.intentId, ctx.rules.catalogue)));
    if (isOutOfScopeEntry(entry)) lines.push("", `⚠ recorded outside ${entry.intentId ?? "its intent"}'s scope`);
    lines.push("");
    lines.push(`${contributorText(entry)} · ${relativeTime(entry.timestamp, now)} (${entry.timestamp})`);
    const provenance = provenanceText(owner.attribution, doc.path, m.code);
    if (provenance) lines.push("", provenance);
    if (reformattedBy)
      lines.push(
        "",
        `reformatted by ${contributorText(reformattedBy)} · ${relativeTime(reformattedBy.timestamp, now)} (whitespace only; the line is still ${contributorText(entry)}'s)`,
      );
    lines.push("");
    lines.push(
      `trace ${m.code(entry.recordId)}${entry.toolName ? ` · ${sourceText(entry) ?? entry.toolName}` : ""} · ${confidenceOf(owner.attribution, doc.path, doc.diskHash)}${exact ? "" : ": position as recorded (the record has no content hash to verify)"}`,
    );
    const intent = entry.intentId ? ctx.rules.catalogue.byId.get(entry.intentId) : undefined;
    const constraints = intent ? inheritedConstraints(intent, ctx.rules.catalogue.byId) : [];
    if (constraints.length) lines.push("", "Constraints:", ...constraints.map((c) => `- ${c}`));
  }
  return { contents: { kind: m.kind, value: lines.join("\n") }, range: lineRange(doc, position.line) };
}

function beforeAdoptionText(adopted: AdoptedLine, now: number, m: Markup): string {
  const { what, who } = beforeAdoptionWords(adopted, now);
  return `${m.strong("Before adoption:")} ${what}${who ? `\n\n${m.escape(who)}` : ""}`;
}

function intentHover(doc: TrackedDocument, position: Position, now: number, m: Markup): Hover | null {
  const ctx = doc.ctx!;
  const offset = doc.doc.offsetAt(position);
  const intent = ctx.rules.catalogue.intents.find((i) => i.span.start <= offset && offset <= i.span.end);
  if (!intent) return null;
  return { contents: { kind: m.kind, value: intentFootprint(intent, doc, now, m).join("\n") } };
}

function intentFootprint(intent: Intent, doc: TrackedDocument, now: number, m: Markup): string[] {
  const ledger = doc.ctx!.ledger;
  const files = ledger.filesFor(intent.id).sort();
  const last = ledger.lastChange(intent.id);
  const out = [`${m.strong(`${intent.id} — ${intent.name}`)} (${intent.status})`, "", `Scope: ${intent.ownedScope.map(m.code).join(", ")}`, ""];
  out.push(
    `${ledger.editCount(intent.id)} recorded edits in ${files.length} files${last ? ` · last change ${relativeTime(last.timestamp, now)} by ${contributorText(last)} in ${m.code(last.path)}` : ""}`,
  );
  if (files.length) out.push("", ...files.slice(0, 20).map((f) => `- ${m.code(f)}`), ...(files.length > 20 ? [`- … and ${files.length - 20} more`] : []));
  return out;
}

function lineRange(doc: TrackedDocument, line: number) {
  return { start: { line, character: 0 }, end: { line, character: doc.lineText(line).length } };
}
