import { randomUUID } from "node:crypto";
import type { Settings } from "@shared/settings";
import { judge, type Selection, type Verdict } from "../engine/gate";
import type { Catalogue } from "../engine/intents/model";
import { WorkspaceLedger } from "../engine/ledger/workspaceLedger";
import { toWorkspacePath } from "../engine/paths";
import { buildRules, type Rules } from "../engine/rules";
import {
  listSessions,
  newSessionRecord,
  pruneDeadSessions,
  readWorkspaceSelection,
  removeSession,
  resolveSelection,
  writeSession,
  type SessionRecord,
  type WorkspaceSelection,
} from "../engine/sessions";
import { readRuleFiles, RULE_FILES, type RuleFile, type RuleFileTexts } from "../engine/workspaceFiles";

/**
 * One workspace folder as the server sees it: the rules in force, the selection, and this server's
 * session. Rebuilt as a whole when a rule file changes; never touched on the keystroke path.
 */
export class WorkspaceContext {
  rules: Rules;
  ledger: WorkspaceLedger;
  selection: Selection | undefined;
  workspaceSelection: WorkspaceSelection | undefined;
  /** Session files of every session in this workspace (ours included), as last read. */
  sessions: SessionRecord[] = [];
  readonly session: SessionRecord;
  /** Bumped on every reload so per-document caches know they are stale. */
  generation = 0;
  private lastGood: Catalogue | undefined;
  private clientSettings: Partial<Settings> = {};
  /** Texts of rule files open in the editor, which win over the disk (the user sees the buffer). */
  private readonly overlays = new Map<RuleFile, string>();
  /** The rule files' texts `rules` were built from. */
  private loaded: RuleFileTexts = {};

  constructor(
    readonly root: string,
    clientName: string,
  ) {
    this.session = newSessionRecord(`lsp-${randomUUID()}`, clientName);
    this.rules = buildRules({});
    this.reload();
    this.ledger = new WorkspaceLedger(root, this.rules.settings.ledgerPath);
  }

  /** Workspace-relative POSIX path of an absolute file path, or undefined when it lies outside. */
  relativePath(fsPath: string): string | undefined {
    return toWorkspacePath(this.root, fsPath);
  }

  ruleFileOf(path: string): RuleFile | undefined {
    return (RULE_FILES as readonly string[]).includes(path) ? (path as RuleFile) : undefined;
  }

  setOverlay(file: RuleFile, text: string | undefined): void {
    if (text === undefined) this.overlays.delete(file);
    else this.overlays.set(file, text);
  }

  /** Whether the rules in force were read from this text of a rule file (positions in them refer to it). */
  rulesReadFrom(file: RuleFile, text: string): boolean {
    return this.loaded[file] === text;
  }

  setClientSettings(settings: Partial<Settings>): void {
    this.clientSettings = settings;
  }

  reload(): void {
    let texts: RuleFileTexts;
    try {
      texts = readRuleFiles(this.root);
    } catch {
      texts = {}; // unreadable (permissions, a directory in the way): act as if absent, keep serving
    }
    for (const [file, text] of this.overlays) texts[file] = text;
    this.loaded = texts;
    this.rules = buildRules(texts, this.clientSettings, this.lastGood);
    if (!this.rules.intents.hasErrors) this.lastGood = this.rules.catalogue;
    // a new ledger location (settings) means a new ledger to follow; the server polls it next
    if (this.ledger && this.ledger.ledgerPath !== this.rules.settings.ledgerPath) this.ledger = new WorkspaceLedger(this.root, this.rules.settings.ledgerPath);
    this.reloadSelection();
  }

  reloadSelection(): void {
    this.workspaceSelection = readWorkspaceSelection(this.root);
    this.selection = resolveSelection(this.session, this.workspaceSelection);
    this.sessions = listSessions(this.root);
    this.generation++;
  }

  judge(path: string): Verdict {
    return judge(path, this.rules, this.selection);
  }

  heartbeat(now = new Date()): void {
    if (!this.rules.intentsFileExists) return; // not an intent-managed workspace: leave no files behind
    this.session.heartbeat = now.toISOString();
    try {
      writeSession(this.root, this.session);
      pruneDeadSessions(this.root, now.getTime());
    } catch {
      /* a read-only workspace still gets diagnostics; sessions are best effort there */
    }
  }

  /** Records which files have unsaved edits here, and under which intents, so other sessions can warn about them. */
  setDirtyFiles(paths: string[], intents: string[]): void {
    const files = [...new Set(paths)].sort();
    const working = [...new Set(intents)].sort();
    const same = (a: string[], b: string[] | undefined) => JSON.stringify(a) === JSON.stringify(b ?? []);
    if (same(files, this.session.dirtyFiles) && same(working, this.session.workingOn)) return;
    this.session.dirtyFiles = files;
    this.session.workingOn = working;
    this.heartbeat();
  }

  dispose(): void {
    removeSession(this.root, this.session.id);
  }
}
