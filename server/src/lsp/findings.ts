import type { Diagnostic } from "vscode-languageserver";
import { contributorText, intentTitle } from "../engine/describe";
import { fileHash } from "../engine/hashing";
import { isLive, type SessionRecord } from "../engine/sessions";
import { makeDiagnostic } from "./diagnostics";
import type { TrackedDocument } from "./documents";
import { newestOf } from "../engine/ledger/entryOrder";

/**
 * Whole-file findings about an open document (docs/ARCHITECTURE.md "The language server's surface"): `stale-file`
 * needs the file on disk, so it is computed when something happens to it, never per keystroke.
 * `untraced-change` and `claimed-elsewhere` need only what is in memory and are computed with every publish:
 * their lines are the current version's.
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
  return makeDiagnostic(ctx.rules.settings, "stale-file", LINE0, `${path} changed on disk after it was loaded here${by}. Saving will overwrite that change; reload the file first.`);
}

/** The content differs from what the ledger last recorded, and no record explains the difference. */
export function untracedChange(doc: TrackedDocument): Diagnostic[] {
  const ctx = doc.ctx!;
  const path = doc.path!;
  const last = ctx.ledger.lastPostHash(path);
  if (!last || last === doc.diskHash || ctx.ledger.hasPostHash(path, doc.diskHash)) return [];
  const entries = ctx.ledger.entriesFor(path);
  const lastEntry = newestOf(entries.filter((e) => e.postHash === last));
  const message = `${path} differs from its last recorded content${lastEntry ? ` (${lastEntry.recordId}, ${lastEntry.timestamp})` : ""} and no ledger record explains the change: it was edited outside intent-lsp and the agent hooks.`;
  // Where known: the lines the last record wrote that no longer carry its attribution.
  const lost: number[] = [];
  if (lastEntry) {
    for (const e of entries.filter((x) => x.recordId === lastEntry.recordId)) {
      // file-level entries (no ranges: an emptied file, a record whose ranges were unusable) name no line
      if (e.startLine < 1) continue;
      for (let line = e.startLine - 1; line < e.endLine && line < doc.doc.lineCount; line++) {
        const o = doc.owner(line);
        if (o.kind !== "traced" || o.attribution.entry.recordId !== e.recordId) lost.push(line);
      }
    }
  }
  const blocks = toBlocks(lost);
  const ranges = blocks.length ? blocks.map(([s, e]) => ({ start: { line: s, character: 0 }, end: { line: e, character: doc.lineText(e).length } })) : [LINE0];
  return ranges.map((r) => makeDiagnostic(ctx.rules.settings, "untraced-change", r, message)).filter((d): d is Diagnostic => !!d);
}

/** Another live session has unsaved edits to this file, or explicitly holds the intent this edit counts under. */
export function claimedElsewhere(doc: TrackedDocument, sessions: readonly SessionRecord[], now: number): Diagnostic | undefined {
  const ctx = doc.ctx!;
  const path = doc.path!;
  const mine = doc.verdict();
  const myIntent = mine && (mine.kind === "allowed" || mine.kind === "out-of-scope") ? mine.intent.id : undefined;
  for (const s of sessions) {
    if (s.id === ctx.session.id || !isLive(s, now)) continue;
    const label = `${s.client} session ${s.id}`;
    if (s.dirtyFiles?.includes(path)) {
      return makeDiagnostic(ctx.rules.settings, "claimed-elsewhere", LINE0, `${path} has unsaved edits in another ${label} (last seen ${s.heartbeat}). Coordinate before saving.`);
    }
    if (myIntent && (s.intent === myIntent || s.workingOn?.includes(myIntent)) && doc.edits.isEdited()) {
      return makeDiagnostic(ctx.rules.settings, "claimed-elsewhere", LINE0, `${myIntent} is held by another ${label} (last seen ${s.heartbeat}). Coordinate so you do not overwrite each other.`);
    }
  }
  return undefined;
}

function toBlocks(lines: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const l of [...new Set(lines)].sort((a, b) => a - b)) {
    const last = out[out.length - 1];
    if (last && last[1] === l - 1) last[1] = l;
    else out.push([l, l]);
  }
  return out;
}
