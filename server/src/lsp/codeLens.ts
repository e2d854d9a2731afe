import type { CodeLens, Command } from "vscode-languageserver";
import type { Intent } from "../engine/intents/model";
import type { WorkspaceContext } from "./workspaceContext";
import { Commands } from "@shared/commands";
import { blockLabel, relativeTime, who } from "../engine/describe";
import { INTENTS_FILE } from "../engine/workspaceFiles";
import type { TrackedDocument } from "./documents";
import type { AttributedBlock } from "./lineOwners";
import { addLines, authorOfEntry, emptyCounts, isOutOfScopeEntry, percent } from "../engine/authorship";
import { newestOf } from "../engine/ledger/entryOrder";

/** A lens that informs; clicking it asks for the blame of the lines it covers (harmless in every client). */
const info = (line: number, title: string, uri: string, startLine = line, endLine = line): CodeLens => ({
  range: { start: { line, character: 0 }, end: { line, character: 0 } },
  command: { title, command: Commands.blame, arguments: [{ uri, startLine, endLine }] },
});

/**
 * Block lenses a document shows at most, the first in the file: a file attributed in tens of thousands of
 * blocks (one edited on every other line) would otherwise cost every lens request a lens per block, with
 * every other request waiting, for lenses nobody reads. The summary says when lenses stop.
 */
export const MAX_BLOCK_LENSES = 1_000;

/** docs/ARCHITECTURE.md "The language server's surface": a lens per attributed block, a file summary, and per intent in active_intents.yaml. */
export function codeLenses(doc: TrackedDocument, now: number, criteriaLens: CriteriaLens = () => undefined): CodeLens[] {
  const ctx = doc.ctx;
  if (!ctx || doc.path === undefined || !ctx.rules.settings.codeLens.enabled) return [];
  if (doc.path === INTENTS_FILE) return intentLenses(doc, criteriaLens);

  const blocks = doc.attributedBlocks();
  if (!blocks.length) return [];
  const lenses: CodeLens[] = [];
  const records = new Set(blocks.map((b) => b.attribution.entry.recordId));
  const intents = [...new Set(blocks.map((b) => b.attribution.entry.intentId ?? "no intent"))];
  const newest = newestOf(blocks.map((b) => b.attribution.entry))!; // blocks is not empty
  const traced = blocks.reduce((n, b) => n + b.end - b.start + 1, 0);
  // a final newline does not make another line of text
  const total = doc.doc.lineCount - (doc.lineText(doc.doc.lineCount - 1) === "" ? 1 : 0);
  lenses.push(
    info(
      0,
      `${traced}/${total} lines traced · ${countsLabel(blocks, total, doc.editedLineCount())} · ${records.size} ${records.size === 1 ? "record" : "records"} · ${intents.join(", ")} · last ${who(newest)} ${relativeTime(newest.timestamp, now)}${blocks.length > MAX_BLOCK_LENSES ? ` · lenses on the first ${MAX_BLOCK_LENSES.toLocaleString("en")} of ${blocks.length.toLocaleString("en")} blocks` : ""}`,
      doc.uri,
      0,
      doc.doc.lineCount - 1,
    ),
  );
  for (const b of blocks.slice(0, MAX_BLOCK_LENSES)) lenses.push(info(b.start, blockLabel(b.attribution.entry, now), doc.uri, b.start, b.end));
  return lenses;
}

/** The "Verify N criteria" lens of an intent with runnable criteria (lsp/criteria.ts), if it has any. */
export type CriteriaLens = (ctx: WorkspaceContext, intent: Intent) => Command | undefined;

/**
 * The file's lines counted as `intent stats` and the report count them (engine/authorship.ts), from the
 * document's own owners: AI, people, untraced, and what is out of scope, mixed, unknown or unsaved.
 */
function countsLabel(blocks: readonly AttributedBlock[], total: number, edited: number): string {
  const c = emptyCounts();
  for (const b of blocks) addLines(c, authorOfEntry(b.attribution.entry), isOutOfScopeEntry(b.attribution.entry), b.end - b.start + 1);
  const untraced = Math.max(0, total - c.total - edited);
  const parts = [`AI ${c.ai} (${percent(c.ai, total)})`, `human ${c.human}`];
  if (c.mixed) parts.push(`mixed ${c.mixed}`);
  if (c.unknown) parts.push(`unknown ${c.unknown}`);
  parts.push(`untraced ${untraced}`);
  if (edited) parts.push(`unsaved ${edited}`);
  if (c.outOfScope) parts.push(`${c.outOfScope} out of scope`);
  return parts.join(" · ");
}

function intentLenses(doc: TrackedDocument, criteriaLens: CriteriaLens): CodeLens[] {
  const { rules, ledger, selection } = doc.ctx!;
  // the intents' lines are those of the text the catalogue was read from: none while the buffer is ahead of
  // it (a reload waits for a pause in typing) or broken (the last good catalogue stands in)
  if (rules.usingLastGood || !doc.ctx!.rulesReadFrom(INTENTS_FILE, doc.doc.getText())) return [];
  const lenses: CodeLens[] = [];
  for (const intent of rules.catalogue.intents) {
    const at = { start: { line: intent.line, character: 0 }, end: { line: intent.line, character: 0 } };
    const selected = selection?.intentId === intent.id;
    if (intent.status === "IN_PROGRESS") {
      lenses.push({
        range: at,
        command: selected
          ? { title: "✓ selected", command: Commands.clearIntent, arguments: [{ uri: doc.uri }] }
          : { title: "select", command: Commands.selectIntent, arguments: [{ id: intent.id, uri: doc.uri }] },
      });
    }
    const verify = criteriaLens(doc.ctx!, intent);
    if (verify) lenses.push({ range: at, command: verify });
    const files = ledger.filesFor(intent.id).length;
    lenses.push({
      range: at,
      command: { title: `${ledger.editCount(intent.id)} edits · ${files} files`, command: Commands.listIntents, arguments: [{ uri: doc.uri }] },
    });
  }
  return lenses;
}
