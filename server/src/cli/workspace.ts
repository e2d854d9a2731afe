import { summaryWorkers } from "../io/ledger/summaryWorkers";
import { loadIntentsCached } from "../io/intents/catalogueCache";
import { buildRules, type Rules } from "../engine/rules";
import { WorkspaceLedger } from "../io/ledger/workspaceLedger";
import { INTENTS_FILE, type RuleFileTexts } from "../engine/workspaceFiles";
import { readRuleFiles } from "../io/ruleFiles";
import { resolveWorkspaceRoot, type WorkspaceRoot } from "../io/workspaceRoot";
import { CliError, type Io } from "./args";
import type { Progress } from "../io/progress";

/** The workspace a command works in, and its rules as the editor would see them with nothing open. */
export interface CliWorkspace extends WorkspaceRoot {
  rules: Rules;
  /** The rule files `rules` were built from. */
  texts: RuleFileTexts;
}

export function openWorkspace(io: Io, rootFlag: string | undefined, opts: { requireIntents?: boolean } = {}): CliWorkspace {
  let found: WorkspaceRoot | undefined;
  try {
    found = resolveWorkspaceRoot(rootFlag, io.cwd, io.cwd);
  } catch (e) {
    throw new CliError((e as Error).message, 2);
  }
  if (!found) {
    throw new CliError(
      `no workspace found: no ${INTENTS_FILE} in ${io.cwd} or above, and not inside a git repository; run from your project or pass --root DIR`,
    );
  }
  const texts = readRuleFiles(found.root);
  const rules = buildRules(texts, {}, undefined, (text) => loadIntentsCached(found!.root, text));
  if (opts.requireIntents && !rules.intentsFileExists) {
    throw new CliError(`no ${INTENTS_FILE} in ${found.root}; declare your intents there first (see the README), or pass --root DIR`);
  }
  return { ...found, rules, texts };
}

/**
 * Every ledger of the workspace, read to the end. `partial`: for a command that asks about a few files,
 * read only those files' part of the saved index. `progress` shows how much of the ledgers was read.
 */
export async function readLedger(ws: CliWorkspace, opts: { partial?: boolean; progress?: Progress } = {}): Promise<WorkspaceLedger> {
  // a large ledger read for the first time is parsed on every processor
  const summarizer = summaryWorkers(process.env);
  const ledger = new WorkspaceLedger(ws.root, ws.rules.settings.ledgerPath, { partial: opts.partial, ...(summarizer ? { summarizer } : {}) });
  const progress = opts.progress;
  await ledger.poll(progress && ((read, total) => progress.update(`reading the ledger: ${total ? Math.floor((100 * read) / total) : 100}%`)));
  return ledger;
}
