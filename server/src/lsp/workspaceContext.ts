import { randomUUID } from "node:crypto";
import type { PersonMetadata } from "@shared/agentTrace";
import type { Settings } from "@shared/settings";
import { personOf } from "../engine/contributor";
import { gitIdentity } from "../io/git";
import { judge, type Selection, type Verdict } from "../engine/gate";
import type { Catalogue } from "../engine/intents/model";
import { WorkspaceLedger } from "../io/ledger/workspaceLedger";
import { summaryWorkers } from "../io/ledger/summaryWorkers";
import { GitSourcesCache } from "../io/gitSources";
import { realRootOf, realWorkspacePath } from "../io/realPath";
import { buildRules, type Rules } from "../engine/rules";
import { newSessionRecord, resolveSelection, type SessionRecord, type WorkspaceSelection } from "../engine/sessions";
import { UnsafeWriteError } from "../io/ownFiles";
import { listSessions, pruneDeadSessions, readSelectionFiles, removeSession, writeSession } from "../io/sessionFiles";
import { thisProcess } from "../io/liveSessions";
import { loadIntentsCached } from "../io/intents/catalogueCache";
import { loadIntents } from "../engine/intents/load";
import { INTENTS_FILE, RULE_FILES, type RuleFile, type RuleFileTexts, sameRuleTexts } from "../engine/workspaceFiles";
import { readRuleFiles } from "../io/ruleFiles";
import { readOwnFile } from "../io/ownFiles";

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
  /** The person of this workspace's human saves, read once per identity settings (git is asked at most then). */
  private personCache: { identity: Settings["identity"]; person: PersonMetadata | undefined } | undefined;
  /** What `rules` were built from. */
  private built: { texts: RuleFileTexts; clientSettings: Partial<Settings> } | undefined;

  /** The root with its symbolic links followed: one folder reached under two spellings is one workspace. */
  readonly realRoot: string;
  /** What git says of renames and splits no record names (asked in the background, per path and HEAD). */
  readonly gitSources: GitSourcesCache;
  /** Why the rule files could not be read at the last reload (told once per reason). */
  private readProblem: string | undefined;
  /** Why the session file could not be written last time (told once per reason). */
  private sessionProblem: string | undefined;

  constructor(
    readonly root: string,
    clientName: string,
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    this.realRoot = realRootOf(root);
    this.gitSources = new GitSourcesCache(root);
    this.session = newSessionRecord(`lsp-${randomUUID()}`, clientName, thisProcess());
    this.rules = buildRules({});
    this.reload();
    this.ledger = this.newLedger();
  }

  /** The workspace's ledger, asking git (in the background) for the renames and splits no record names. */
  private newLedger(): WorkspaceLedger {
    // a large ledger read for the first time is parsed on every processor, off the thread that answers the editor
    const summarizer = summaryWorkers(process.env);
    const ledger = new WorkspaceLedger(this.root, this.rules.settings.ledgerPath, { settleAfter: true, ...(summarizer ? { summarizer } : {}) });
    ledger.gitNames = (path) => this.gitSources.names(path);
    return ledger;
  }

  /**
   * The workspace-relative path of the file a write to `fsPath` reaches (links followed, then `..`: the rule
   * the agent gate applies), or undefined when it lies outside. A file open under two spellings (through a
   * symlinked folder and directly) is one file, judged and recorded once.
   */
  relativePath(fsPath: string): string | undefined {
    return realWorkspacePath(this.root, fsPath);
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
    return this.built?.texts[file] === text;
  }

  /** The text of a rule file the rules in force were read from (their problems' positions refer to it). */
  ruleFileText(file: RuleFile): string | undefined {
    return this.built?.texts[file];
  }

  /**
   * Whether a rule file not open in the editor holds another text on disk than the rules were read from: it
   * changed and the reload its file event brings has not run yet. A file that cannot be read is not news
   * (the reload reads it the same way and keeps the workspace without it).
   */
  ruleFileChangedOnDisk(file: RuleFile): boolean {
    // an unreadable rule file leaves the rules without any: nothing newer to read until it is fixed
    if (this.overlays.has(file) || this.readProblem !== undefined) return false;
    try {
      return readOwnFile(this.root, file) !== this.built?.texts[file];
    } catch {
      return false;
    }
  }

  /** Who a person's save names (docs/LEDGER.md "The person"): the `identity` settings, else git's user.name / user.email. */
  person(): PersonMetadata | undefined {
    const identity = this.rules.settings.identity;
    if (this.personCache?.identity !== identity) this.personCache = { identity, person: personOf(identity, gitIdentity(this.root)) };
    return this.personCache.person;
  }

  setClientSettings(settings: Partial<Settings>): void {
    this.clientSettings = settings;
  }

  reload(): void {
    let texts: RuleFileTexts;
    try {
      texts = readRuleFiles(this.root);
      this.readProblem = undefined;
    } catch (e) {
      texts = {}; // unreadable (permissions, a directory in the way, a link out of the workspace): act as if absent, keep serving
      const problem = (e as Error).message;
      if (problem !== this.readProblem)
        this.warn(`intent-lsp: the rule files of ${this.root} cannot be read: ${problem}. Until this is fixed the workspace has no intents.`);
      this.readProblem = problem;
    }
    const onDisk = texts[INTENTS_FILE];
    for (const [file, text] of this.overlays) texts[file] = text;
    // start-up, settings and file events reload often with nothing changed: a large catalogue is not parsed again
    if (!sameInputs(this.built, texts, this.clientSettings)) {
      // the text on disk goes through the workspace's cache; a buffer being typed into does not fill it
      const load = (text: string) => (text === onDisk ? loadIntentsCached(this.root, text) : loadIntents(text));
      this.rules = buildRules(texts, this.clientSettings, this.lastGood, load);
      this.built = { texts, clientSettings: this.clientSettings };
    }
    if (!this.rules.intents.hasErrors) this.lastGood = this.rules.catalogue;
    // a new ledger location (settings) means a new ledger to follow; the server polls it next
    if (this.ledger && this.ledger.ledgerPath !== this.rules.settings.ledgerPath) this.ledger = this.newLedger();
    this.reloadSelection();
  }

  reloadSelection(): void {
    // the editor's own session file is its own to rewrite: only the workspace's can hold a selection it does not know
    const files = readSelectionFiles(this.root);
    this.workspaceSelection = files.workspace;
    this.selection = resolveSelection(this.session, this.workspaceSelection, files.damage);
    this.sessions = listSessions(this.root);
    this.generation++;
  }

  judge(path: string): Verdict {
    return judge(path, this.rules, this.selection);
  }

  /** The session's heartbeat, on a timer: also the time to prune sessions that died long ago. */
  heartbeat(now = new Date()): void {
    if (!this.writeSession(now)) return;
    try {
      pruneDeadSessions(this.root, now.getTime());
    } catch {
      /* best effort, as below */
    }
  }

  /** Writes this session's file (not on the keystroke path: with the publish, or the heartbeat). */
  private writeSession(now = new Date()): boolean {
    if (!this.rules.intentsFileExists) return false; // not an intent-managed workspace: leave no files behind
    this.session.heartbeat = now.toISOString();
    try {
      writeSession(this.root, this.session);
      this.sessionProblem = undefined;
      return true;
    } catch (e) {
      // a read-only workspace still gets diagnostics; sessions are best effort there. A link or a FIFO in
      // the way is the repository's doing: said once, so the user can remove it
      if (e instanceof UnsafeWriteError && e.message !== this.sessionProblem) this.warn(`intent-lsp: this editor's session file was not written: ${e.message}`);
      this.sessionProblem = e instanceof UnsafeWriteError ? e.message : undefined;
      return false;
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
    this.writeSession();
  }

  dispose(): void {
    removeSession(this.root, this.session.id);
    this.ledger.flush(); // the next start reads only what is appended after this
  }
}

function sameInputs(
  built: { texts: RuleFileTexts; clientSettings: Partial<Settings> } | undefined,
  texts: RuleFileTexts,
  clientSettings: Partial<Settings>,
): boolean {
  if (!built || JSON.stringify(built.clientSettings) !== JSON.stringify(clientSettings)) return false;
  return sameRuleTexts(built.texts, texts);
}
