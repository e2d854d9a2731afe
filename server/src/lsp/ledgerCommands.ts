/** Commands over the ledger (docs/ARCHITECTURE.md "The language server's surface"): blame, regenerateMap, verifyLedger, showContext, report, revert. */
import { isAbsolute, join } from "node:path";
import { ErrorCodes, LSPErrorCodes, ResponseError } from "vscode-languageserver";
import { Commands, type ReportResult, type RevertResult } from "@shared/commands";
import { blame as blameFile, blameByOwner, type BlameRange } from "../engine/blame";
import { gatherIntentContext } from "../io/contextSources";
import { regenerateIntentMap } from "../io/intentMap";
import { verifyWorkspaceLedger } from "../io/ledger/verifySegments";
import { adoptionOf, adoptionSource, keptFrom } from "../io/adoption";
import { readOptional } from "../io/optionalFile";
import { splitLines } from "../engine/hashing";
import { GitError } from "../io/git";
import { lineDating } from "../io/commitDates";
import { adoptionTextsFor, insightSteps } from "../io/insight";
import { reportFrom, reportOptions, writeReport } from "../io/report";
import { applyRevert, planRevert, revertResult } from "../io/revertPlan";
import { REPORT_SCRIPT } from "../reportScript";
import { INTENT_LSP_VERSION } from "../version";
import { pause } from "./yielding";
import type { CommandHandler, CommandHost } from "./commands";
import type { WorkspaceContext } from "./workspaceContext";

const invalid = (message: string) => new ResponseError(ErrorCodes.InvalidParams, message);

/** The ledger read to its end, as `intent` reads it, before a command answers from it. */
async function readLedger(host: CommandHost, ctx: WorkspaceContext): Promise<void> {
  await host.pollLedger(ctx);
}

/**
 * `intent blame`'s rows for a file: an open document by its tracked edits (unsaved lines are "edited"), any
 * other file from disk. Lines are 0-based in the arguments, as LSP positions are, and 1-based in the rows.
 */
const blame: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  const doc = typeof args.uri === "string" ? host.document(args.uri) : undefined;
  let path = doc?.path;
  if (path === undefined) {
    if (typeof args.path !== "string" || !args.path)
      throw invalid(`Missing argument "uri" or "path" (for example {"path":"src/api/weather.ts","startLine":0,"endLine":10}).`);
    if (args.path.includes("\u0000"))
      throw invalid(`${JSON.stringify(args.path)} holds a NUL character, which no file name can; pass a workspace-relative path such as "src/api/weather.ts".`);
    path = ctx.relativePath(args.path);
    if (path === undefined)
      throw invalid(
        `${JSON.stringify(args.path)} is not a file inside the workspace ${ctx.root}; pass a workspace-relative path such as "src/api/weather.ts".`,
      );
  }
  const range: BlameRange = {
    ...(typeof args.startLine === "number" ? { start: args.startLine + 1 } : {}),
    ...(typeof args.endLine === "number" ? { end: args.endLine + 1 } : {}),
  };
  if (doc) return { path, lines: blameByOwner(doc.doc.getText(), (line) => doc.owner(line), range, path, doc.diskHash) };
  const text = readOptional(join(ctx.root, path));
  if (text === undefined) throw invalid(`${path} does not exist in the workspace.`);
  await readLedger(host, ctx);
  // the lines kept from before the adoption point, as `intent blame` says them (git asked in the background)
  const adoption = adoptionOf(ctx.root);
  const source = adoption ? await adoptionSource(ctx.root, adoption, path) : undefined;
  return {
    path,
    lines: blameFile(ctx.ledger.attributionEntries(path, splitLines(text)), text, range, path, source === undefined ? undefined : keptFrom(source, text)),
  };
};

const regenerateMap: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  await readLedger(host, ctx);
  return { ...regenerateIntentMap(ctx.root, ctx.rules.catalogue, ctx.ledger), intents: ctx.rules.catalogue.intents.length };
};

const verifyLedgerCommand: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  const report = await verifyWorkspaceLedger(ctx.root, ctx.ledger.ledgerPath);
  return { path: ctx.ledger.ledgerPath, ...(report ?? { ok: true, records: 0, problems: [] }) };
};

const showContext: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  const id = typeof args.id === "string" ? args.id : ctx.selection?.intentId;
  if (!id) throw new ResponseError(ErrorCodes.InvalidParams, `Missing argument "id" (for example {"id":"INT-001"}), and no intent is selected.`);
  const intent = ctx.rules.catalogue.byId.get(id);
  if (!intent) throw new ResponseError(ErrorCodes.InvalidParams, `No intent ${id} in active_intents.yaml.`);
  await readLedger(host, ctx);
  const result = gatherIntentContext(ctx.root, ctx.rules, ctx.ledger, intent, typeof args.budget === "number" ? args.budget : undefined);
  return { id, xml: result.xml, bytes: result.bytes, omitted: result.omitted };
};

/**
 * `intent report`'s page, written where the person asked (default: the cache folder). Git is asked when the
 * untraced lines were committed in the background (io/commitDates.ts), and the files are read in steps with
 * pauses between them, so typing and other requests go on meanwhile.
 */
const report: CommandHandler = async (host, args): Promise<ReportResult> => {
  const ctx = host.context(args);
  if (!REPORT_SCRIPT) throw new ResponseError(ErrorCodes.InternalError, "This build of intent-lsp has no report page script; build it with `npm run build`.");
  if (args.out !== undefined && (typeof args.out !== "string" || !args.out || args.out.includes("\u0000")))
    throw invalid(`"out" must be a file path inside the workspace, such as "reports/insight.html".`);
  if (args.path !== undefined && typeof args.path !== "string") throw invalid(`"path" must be a glob such as "src/**".`);
  await readLedger(host, ctx);
  const opts = { ...(typeof args.path === "string" && args.path ? { path: args.path } : {}) };
  const options = reportOptions(opts);
  const dating = options.by ? await lineDating(ctx.root, "worktree") : undefined;
  const then = await adoptionTextsFor(ctx.root, ctx.rules, options);
  const steps = insightSteps(ctx.root, ctx.rules, ctx.ledger, options, dating, then);
  let r: ReturnType<typeof steps.next>;
  try {
    r = steps.next();
    while (!r.done) {
      await pause();
      r = steps.next();
    }
  } catch (e) {
    // the report counts the files git knows (tracked and untracked, not ignored): without git there are none
    if (e instanceof GitError)
      throw new ResponseError(LSPErrorCodes.RequestFailed, `The report counts the files git knows, and ${e.message}; run \`git init\` there first.`);
    throw e;
  }
  const { html, insight } = reportFrom(ctx.root, r.value, opts, { version: INTENT_LSP_VERSION, script: REPORT_SCRIPT });
  let rel: string;
  try {
    rel = writeReport(ctx.root, html, typeof args.out === "string" ? (isAbsolute(args.out) ? args.out : join(ctx.root, args.out)) : undefined);
  } catch (e) {
    throw new ResponseError(ErrorCodes.InvalidParams, (e as Error).message);
  }
  return { path: rel, file: join(ctx.root, rel), lines: insight.lines, ...(args.html === true ? { html } : {}) };
};

/**
 * `intent revert --intent ID --json`, or with `apply: true` `--apply`: the same plan (io/revertPlan.ts), made
 * from the files on disk. A file open with unsaved edits is not written, and then no file is: the plan does
 * not see the buffer, and writing the file would take the person's edits from under them.
 */
const revert: CommandHandler = async (host, args): Promise<RevertResult> => {
  const ctx = host.context(args);
  // a bare intent id typed by hand arrives as `id` (normalizeArgs)
  const id = (typeof args.intent === "string" ? args.intent : typeof args.id === "string" ? args.id : "").trim();
  if (!id) throw invalid(`Missing argument "intent" (for example {"intent":"INT-001"}): the intent whose work to take back.`);
  await readLedger(host, ctx);
  const plan = planRevert(ctx.root, ctx.ledger, { intent: id });
  if (!plan.matched)
    throw new ResponseError(
      LSPErrorCodes.RequestFailed,
      `No record of intent ${id} in the ledger of ${ctx.root}, so none of its work can be taken back; \`intent stats\` lists the intents on record.`,
    );
  const apply = args.apply === true;
  if (apply) {
    const unsaved = plan.changed.map((r) => r.path).filter((path) => host.hasUnsavedEdits(ctx, path));
    if (unsaved.length)
      throw new ResponseError(
        LSPErrorCodes.RequestFailed,
        `${unsaved.join(", ")} ${unsaved.length > 1 ? "have" : "has"} unsaved changes in the editor, which the revert would overwrite; nothing was written. Save or undo them, then revert ${id} again.`,
      );
    applyRevert(ctx.root, plan);
  }
  return revertResult(plan, apply);
};

export const ledgerCommands: Partial<Record<string, CommandHandler>> = {
  [Commands.showContext]: showContext,
  [Commands.blame]: blame,
  [Commands.regenerateMap]: regenerateMap,
  [Commands.verifyLedger]: verifyLedgerCommand,
  [Commands.report]: report,
  [Commands.revert]: revert,
};
