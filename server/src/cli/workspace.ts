import { summaryWorkers } from "../io/ledger/summaryWorkers";
import { loadIntentsCached } from "../io/intents/catalogueCache";
import { buildRules, type Rules, settingsOf } from "../engine/rules";
import { WorkspaceLedger } from "../io/ledger/workspaceLedger";
import { CONFIG_FILE, INTENTS_FILE, type RuleFileTexts } from "../engine/workspaceFiles";
import { readRuleFiles } from "../io/ruleFiles";
import { resolveWorkspaceRoot, type WorkspaceRoot } from "../io/workspaceRoot";
import { CliError, type Io } from "./args";
import type { Progress } from "../io/progress";
import type { Settings } from "@shared/settings";

/** The workspace of a command that answers from the ledger alone: where it is, and its settings. */
export interface LedgerWorkspace extends WorkspaceRoot {
  settings: Settings;
}

/** The workspace a command works in, and its rules as the editor would see them with nothing open. */
export interface CliWorkspace extends LedgerWorkspace {
  rules: Rules;
  /** The rule files `rules` were built from. */
  texts: RuleFileTexts;
}

export function openWorkspace(io: Io, rootFlag: string | undefined, opts: { requireIntents?: boolean } = {}): CliWorkspace {
  const found = findWorkspace(io, rootFlag);
  const texts = readRuleFiles(found.root);
  const rules = buildRules(texts, {}, undefined, (text) => loadIntentsCached(found.root, text));
  if (opts.requireIntents && !rules.intentsFileExists) {
    throw new CliError(`no ${INTENTS_FILE} in ${found.root}; declare your intents there first (see the README), or pass --root DIR`);
  }
  return { ...found, rules, texts, settings: rules.settings };
}

/**
 * The workspace with its settings (`config.jsonc`, read as `openWorkspace` reads it) and nothing of its
 * intents: a command that answers from the ledger alone (`intent blame`) does not load the catalogue.
 */
export function openLedgerWorkspace(io: Io, rootFlag: string | undefined): LedgerWorkspace {
  const found = findWorkspace(io, rootFlag);
  return { ...found, settings: settingsOf(readRuleFiles(found.root, [CONFIG_FILE])).settings };
}

function findWorkspace(io: Io, rootFlag: string | undefined): WorkspaceRoot {
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
  return found;
}

/**
 * Every ledger of the workspace, read to the end. `partial`: for a command that asks about a few files,
 * read only those files' part of the saved index. `progress` shows how much of the ledgers was read.
 */
export async function readLedger(ws: LedgerWorkspace, opts: { partial?: boolean; progress?: Progress } = {}): Promise<WorkspaceLedger> {
  // a large ledger read for the first time is parsed on every processor
  const summarizer = summaryWorkers(process.env);
  const ledger = new WorkspaceLedger(ws.root, ws.settings.ledgerPath, { partial: opts.partial, ...(summarizer ? { summarizer } : {}) });
  const progress = opts.progress;
  await ledger.poll(progress && ((read, total) => progress.update(`reading the ledger: ${total ? Math.floor((100 * read) / total) : 100}%`)));
  return ledger;
}
