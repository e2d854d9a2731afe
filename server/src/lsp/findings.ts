import type { Diagnostic } from "vscode-languageserver";
import { contributorText, intentTitle } from "../engine/describe";
import { fileHash } from "../engine/hashing";
import type { SessionRecord } from "../engine/sessions";
import { isLiveSession } from "../io/liveSessions";
import { makeDiagnostic, type FirstDiagnostics } from "./diagnostics";
import type { TrackedDocument } from "./documents";
import { newestOf } from "../engine/ledger/entryOrder";
import { lineFindings, unrecordedContentFinding, type Finding } from "../engine/check";
import { contentLineCount } from "../engine/attribution";
import { changedLinesOf } from "../io/changedLines";

/**
 * Whole-file findings about an open document (docs/ARCHITECTURE.md "The language server's surface"): `stale-file`
 * needs the file on disk, so it is computed when something happens to it, never per keystroke, as are the
 * saved lines' findings (`computeSavedFindings`). `claimed-elsewhere` needs only what is in memory and is
 * computed with every publish.
 */
export function fileFindings(doc: TrackedDocument, diskText: string | undefined): Diagnostic[] {
  const stale = staleFile(doc, diskText);
  return stale ? [stale] : [];
}

const LINE0 = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/** The file on disk is neither what the editor loaded nor what it holds now: someone else wrote it. */
function staleFile(doc: TrackedDocument, diskText: string | undefined): Diagnostic | undefined {
  const ctx = doc.ctx!;
  const path = doc.path!;
  if (diskText === undefined) return undefined; // never saved, or deleted: nothing to overwrite by surprise
  const disk = fileHash(diskText);
  if (disk === doc.diskHash || disk === fileHash(doc.doc.getText())) return undefined;
  const writer = newestOf(ctx.ledger.entriesFor(path).filter((e) => e.postHash === disk));
  const by = writer ? ` by ${contributorText(writer)} under ${intentTitle(writer.intentId, ctx.rules.catalogue)} at ${writer.timestamp}` : "";
  return makeDiagnostic(
    ctx.rules.settings,
    "stale-file",
    LINE0,
    `${path} changed on disk after it was loaded here${by}. Saving will overwrite that change; reload the file first.`,
  );
}

/**
 * Computes what `intent check` reports for the document's saved content (docs/EDITORS.md "The editor shows what
 * `intent check` will report"): the lines git counts as changed since the check's base, each judged by the
 * record that explains it (`lineFindings`, the check's own function). Runs when the baseline, the ledger or
 * the rules change, never per keystroke; the result stays in baseline line numbers and moves with the edits
 * at publish. Content on disk other than the baseline (a write not reloaded yet) has no saved findings: its
 * lines are not the editor's. Outside a git repository there is no base to tell changed lines from: the
 * file is compared with the content the ledger last recorded for it (`unrecordedContentFinding`).
 */
export async function computeSavedFindings(doc: TrackedDocument): Promise<void> {
  const ctx = doc.ctx!;
  const path = doc.path!;
  const hash = doc.diskHash;
  const text = doc.baseline;
  // split once, when the baseline was set: splitting a million-line file again here would hold requests
  // for a third of a second
  const lines = doc.baselineLines;
  doc.findings.begin(hash);
  let findings: Finding[] = [];
  try {
    if (doc.attributed && doc.diskText === text && !ctx.rules.ignore.ignores(path)) {
      const changed = await changedLinesOf(ctx.root, path, text);
      if (!doc.findings.isDue(hash)) return; // a newer computation started while git ran: it decides
      if (doc.diskHash !== hash) {
        doc.findings.cancel(); // the baseline moved on (a save, a reload): its own computation follows
        return;
      }
      // outside a git repository there is no base to tell changed lines from: what the ledger last recorded
      // against the file is what is known
      const withoutGit = () => unrecordedContentFinding(path, contentLineCount(lines), hash, doc.lastRecordedHash(), ctx.rules);
      findings = changed ? lineFindings(path, changed, (line) => doc.baselineRecord(line - 1), ctx.rules) : [withoutGit()].filter((f) => f !== undefined);
    }
  } catch {
    findings = []; // git failed: nothing to add to what `intent check` would say about edits
  }
  doc.findings.finish(hash, findings);
}

/**
 * The saved findings where their lines are now, the first `limit` made and the rest counted; lines edited
 * since are judged as edits (`scopeDiagnostics`).
 */
export function savedLineDiagnostics(doc: TrackedDocument, limit = Number.POSITIVE_INFINITY): FirstDiagnostics {
  const saved = doc.findings.saved;
  if (!saved || saved.hash !== doc.diskHash || !doc.ctx || doc.path === undefined) return { list: [], more: 0 };
  const out: Diagnostic[] = [];
  let more = 0;
  const whereNow = doc.edits.blockFinder();
  for (const f of saved.findings) {
    const blocks = whereNow(f.startLine - 1, f.endLine - 1);
    // past the limit, counted (a code switched off counts none)
    if (out.length >= limit) {
      if (doc.ctx.rules.settings.severity[f.code] !== "off") more += blocks.length;
      continue;
    }
    for (const block of blocks) {
      const range = { start: { line: block.start, character: 0 }, end: { line: block.end, character: doc.lineText(block.end).length } };
      const d = makeDiagnostic(doc.ctx.rules.settings, f.code, range, f.message);
      const data: SavedFindingData = {
        path: doc.path,
        hash: saved.hash,
        startLine: f.startLine,
        endLine: f.endLine,
        ...(f.recordId ? { recordId: f.recordId } : {}),
        ...(f.intentId ? { intentId: f.intentId } : {}),
      };
      if (d) out.push({ ...d, data });
    }
  }
  return { list: out, more };
}

/** What a saved line's diagnostic carries for its quick fixes: the saved lines (1-based) and who explains them. */
export interface SavedFindingData {
  path: string;
  /** The saved content the lines are numbered in. */
  hash: string;
  startLine: number;
  endLine: number;
  recordId?: string;
  intentId?: string;
}

/** Another live session has unsaved edits to this file, or explicitly holds the intent this edit counts under. */
export function claimedElsewhere(doc: TrackedDocument, sessions: readonly SessionRecord[], now: number): Diagnostic | undefined {
  const ctx = doc.ctx!;
  const path = doc.path!;
  const mine = doc.verdict();
  const myIntent = mine && (mine.kind === "allowed" || mine.kind === "out-of-scope") ? mine.intent.id : undefined;
  for (const s of sessions) {
    if (s.id === ctx.session.id || !isLiveSession(s, now)) continue;
    const label = `${s.client} session ${s.id}`;
    if (s.dirtyFiles?.includes(path)) {
      return makeDiagnostic(
        ctx.rules.settings,
        "claimed-elsewhere",
        LINE0,
        `${path} has unsaved edits in another ${label} (last seen ${s.heartbeat}). Coordinate before saving.`,
      );
    }
    if (myIntent && (s.intent === myIntent || s.workingOn?.includes(myIntent)) && doc.edits.isEdited()) {
      return makeDiagnostic(
        ctx.rules.settings,
        "claimed-elsewhere",
        LINE0,
        `${myIntent} is held by another ${label} (last seen ${s.heartbeat}). Coordinate so you do not overwrite each other.`,
      );
    }
  }
  return undefined;
}
