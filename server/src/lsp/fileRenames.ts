import { join } from "node:path";
import type { FileRename } from "vscode-languageserver";
import { shouldRecord } from "../engine/recordPolicy";
import { prepareRecords } from "../io/ledger/recordChange";
import { readOptional } from "../io/optionalFile";
import { uriToPath } from "./documents";
import type { PreparedSave } from "./save";
import type { Workspaces } from "./workspaces";
import type { WorkspaceContext } from "./workspaceContext";

/**
 * The editor's file operations (`workspace/didRenameFiles`, sent after the editor renamed files on disk): one
 * record per renamed file, naming the new path as moved from the old one and the old path as deleted (the
 * removal in a record of its own when the two paths fall under different intents), by
 * whoever works in this editor (docs/LEDGER.md "Renames, moves and copies"). The lines keep their authors:
 * the record carries every line of the content, which is the old path's.
 */
export function renameRecords(workspaces: Workspaces, files: readonly FileRename[], toolVersion: string): { ctx: WorkspaceContext; save: PreparedSave }[] {
  const out: { ctx: WorkspaceContext; save: PreparedSave }[] = [];
  for (const f of files) {
    const oldFs = uriToPath(f.oldUri);
    const newFs = uriToPath(f.newUri);
    const ctx = newFs ? workspaces.of(newFs) : undefined;
    if (!ctx || !oldFs || workspaces.of(oldFs) !== ctx) continue;
    const from = ctx.relativePath(oldFs);
    const to = ctx.relativePath(newFs!);
    if (from === undefined || to === undefined || from === to || !shouldRecord(to, ctx.rules)) continue;
    let text: string | undefined;
    try {
      text = readOptional(join(ctx.root, to));
    } catch {
      text = undefined; // a folder, a FIFO: its files are followed by content (engine/lineage.ts)
    }
    if (text === undefined) continue;
    const settings = ctx.rules.settings;
    const records = prepareRecords({
      root: ctx.root,
      ledgerPath: settings.ledgerPath,
      path: to,
      content: text,
      before: text,
      movedFrom: from,
      verdict: ctx.judge(to),
      ...(shouldRecord(from, ctx.rules) ? { otherFiles: [{ path: from, content: null, before: text, verdict: ctx.judge(from) }] } : {}),
      contributor: settings.contributor,
      ...(settings.contributor.type === "ai" ? {} : { person: ctx.person() }),
      sessionId: ctx.session.id,
      toolVersion,
      alreadyRecorded: () => false,
    });
    if ("skip" in records) continue;
    const [record, ...removal] = records;
    out.push({ ctx, save: { path: to, text, record: record!, verdict: ctx.judge(to) } });
    // the old path's removal, in a record of its own when another intent owns it (a record's files share its intent)
    for (const r of removal) out.push({ ctx, save: { path: from, text, record: r } });
  }
  return out;
}
