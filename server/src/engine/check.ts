/**
 * `intent check` (docs/CLI.md and docs/AGENTS.md) as a pure function: for every changed line, the record that explains it
 * (attribution over the checked content), then the gate's verdict for that record's intent. The CLI does the
 * git and file I/O and the formatting; the editor's diagnostics ask the same `judge` and print the same
 * `verdictMessage`, so the two never disagree about a file.
 */
import type { DiagnosticCode } from "@shared/diagnosticCodes";
import type { Severity } from "@shared/settings";
import { attributeChanged } from "./blame";
import { isProblem, judge, verdictMessage, type Selection, type Verdict } from "./gate";
import type { TraceEntry } from "./ledger/read";
import type { Rules } from "./rules";
import { INTENTS_FILE } from "./workspaceFiles";
import { fileHash, splitLines } from "./hashing";
import { contentLineCount } from "./attribution";
import { appendAll } from "./appendAll";

export type FindingCode = Extract<
  DiagnosticCode,
  "out-of-scope" | "intent-not-in-progress" | "no-active-intent" | "untraced-change" | "unowned-change" | "intent-schema"
>;
export type FindingSeverity = Exclude<Severity, "off">;

export interface Finding {
  path: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  code: FindingCode;
  severity: FindingSeverity;
  message: string;
  /** The record that explains these lines (absent for untraced lines and intent-file problems). */
  recordId?: string;
  intentId?: string;
  /** Columns for intent-file problems (1-based), where the YAML node starts. */
  column?: number;
}

export interface ChangedFile {
  path: string;
  /** 1-based line numbers of the checked content that changed since the base. */
  changed: readonly number[];
  /** Places where lines were removed and none added: the line they followed (0: the top) and how many. */
  removed?: readonly Removal[];
  /** The file was deleted, or its content is not text: the change is the whole file's, judged at line 1. */
  whole?: "deleted" | "binary";
  /** The checked content (working tree or index), read only for files that are checked; undefined: gone. */
  read(): string | undefined;
}

export interface Removal {
  after: number;
  count: number;
}

interface CheckResult {
  findings: Finding[];
  /** Files and changed lines that were checked (exempt and vanished files are not). */
  checkedFiles: number;
  checkedLines: number;
}

interface CheckedFile {
  path: string;
  /** The checked content split as blame splits it (`splitLines`), so the CLI and the editor agree. */
  lines: readonly string[];
  changed: readonly number[];
}

/** What a changed line is, before it becomes a finding (or nothing): the record that explains it and its verdict; undefined: untraced. */
type Outcome = { entry: TraceEntry; verdict: Verdict } | undefined;

/**
 * A file's ledger entries newest first, in batches: checking a file stops reading its history once every
 * changed line is explained (attribution is newest first and a line keeps the first record that claims it,
 * so older records cannot change a claimed line), which on a long ledger is most of `intent check`.
 */
/** A file's entries newest first, in batches; given the file's lines, then those of the paths its content came from. */
export type EntryBatches = (path: string, lines?: readonly string[]) => Iterable<readonly TraceEntry[]>;

export function checkChanges(files: readonly ChangedFile[], rules: Rules, entryBatches: EntryBatches): CheckResult {
  const result: CheckResult = { findings: [], checkedFiles: 0, checkedLines: 0 };
  for (const file of files) {
    const removed = file.removed ?? [];
    if ((!file.changed.length && !removed.length && !file.whole) || rules.ignore.ignores(file.path)) continue; // exempt paths are nobody's business
    if (file.whole) {
      result.checkedFiles++;
      result.checkedLines++;
      const finding = wholeFileFinding(file.path, file.whole, rules, entryBatches(file.path));
      if (finding) result.findings.push(finding);
      continue;
    }
    const content = file.read();
    if (content === undefined) continue;
    result.checkedFiles++;
    result.checkedLines += file.changed.length + removed.reduce((n, r) => n + r.count, 0);
    const lines = splitLines(content);
    const findings = file.changed.length ? checkFile({ path: file.path, lines, changed: file.changed }, rules, entryBatches(file.path, lines)) : [];
    // Stryker disable next-line ConditionalExpression: cost only; with no removals removalFindings returns no finding, having searched the file's records for its writer
    if (removed.length) appendAll(findings, removalFindings(file.path, content, contentLineCount(lines), removed, rules, entryBatches(file.path, lines)));
    findings.sort((a, b) => a.startLine - b.startLine);
    appendAll(result.findings, findings);
  }
  return result;
}

// --- changes that left no line behind: removed lines, deleted and binary files ----------------------------

/**
 * Removed lines have no line of the checked content to attribute, so the record that explains them is the
 * one that wrote the content as it is now (its `post_hash` pins it): the removal was part of that write.
 * No such record: the removal is unrecorded, judged as an unrecorded added line is. The finding points at
 * the line that now stands where the lines were (the last line when they were removed at the end).
 */
function removalFindings(
  path: string,
  content: string,
  lineCount: number,
  removed: readonly Removal[],
  rules: Rules,
  batches: Iterable<readonly TraceEntry[]>,
): Finding[] {
  const writer = newestEntry(batches, (e) => e.postHash === fileHash(content));
  const findings: Finding[] = [];
  for (const r of removed) {
    const line = Math.max(1, Math.min(r.after + 1, lineCount));
    const what = `${plural(r.count, "line")} removed ${r.after === 0 ? "at the top" : `after line ${r.after}`}`;
    const finding = writer ? recordedChangeFinding(path, line, writer, rules, what) : unrecordedFinding(path, line, rules, what);
    if (finding) findings.push(finding);
  }
  return findings;
}

/** A deleted file is explained by the newest record that deleted it; a binary file by none (records are of text). */
function wholeFileFinding(path: string, whole: "deleted" | "binary", rules: Rules, batches: Iterable<readonly TraceEntry[]>): Finding | undefined {
  const what = whole === "deleted" ? "the file was deleted" : "the file was replaced by binary (non-text) content";
  const writer = whole === "deleted" ? newestEntry(batches, (e) => e.postHash === null) : undefined;
  return writer ? recordedChangeFinding(path, 1, writer, rules, what) : unrecordedFinding(path, 1, rules, what);
}

function newestEntry(batches: Iterable<readonly TraceEntry[]>, match: (e: TraceEntry) => boolean): TraceEntry | undefined {
  for (const batch of batches) for (const e of batch) if (match(e)) return e;
  return undefined;
}

/** A recorded change with no line of its own, judged by its record's intent as `findingFor` judges a line. */
function recordedChangeFinding(path: string, line: number, entry: TraceEntry, rules: Rules, what: string): Finding | undefined {
  // Stryker disable next-line StringLiteral: judge reads a selection's intentId, never its source
  const verdict = judge(path, rules, entry.intentId ? { intentId: entry.intentId, source: "session" } : undefined);
  const finding = recordedFinding(path, line, entry, verdict, `${path}: ${what}. `);
  return finding && make(rules, finding);
}

/**
 * The finding of a line its record explains, when the record's verdict is a problem (`prefix` says what
 * changed). Every problem verdict is one the agent gate denies, whichever door the change came through, so
 * the finding names that door and what undoes or accounts for the change (docs/ARCHITECTURE.md "One verdict").
 */
function recordedFinding(path: string, line: number, entry: TraceEntry, verdict: Verdict, prefix = ""): Omit<Finding, "severity"> | undefined {
  if (!isProblem(verdict)) return undefined;
  return {
    path,
    startLine: line,
    endLine: line,
    code: verdict.kind,
    message: `${prefix}${verdictMessage(path, verdict)} ${recordedThrough(entry)}`,
    recordId: entry.recordId,
    ...(entry.intentId ? { intentId: entry.intentId } : {}),
  };
}

/** Which door a recorded change came through, and the next step: the gate would deny this write today. */
function recordedThrough(entry: TraceEntry): string {
  const c = entry.contributor;
  const door =
    c.type === "ai"
      ? entry.toolCall
        ? `an agent's shell command (${entry.toolCall}${c.modelId ? `, ${c.modelId}` : ""}), which the gate cannot stop before it runs`
        : `an agent's write${c.modelId ? ` (${c.modelId})` : ""}`
      : c.type === "human"
        ? `a save in the editor${c.name ? ` by ${c.name}` : ""}`
        : c.type === "mixed"
          ? "a change by people and agents together"
          : "a change by an unknown contributor";
  return `Recorded from ${door}; the agent gate would deny this write now. Make it under an in-progress intent that owns the file (re-record the lines, or amend that intent's scope), or revert it.`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function checkFile(file: CheckedFile, rules: Rules, batches: Iterable<readonly TraceEntry[]>): Finding[] {
  const attributions = attributeChanged(file.lines, file.changed, batches);
  // attribution keeps one slot per line of the content: a changed line past its end has no record
  return lineFindings(file.path, file.changed, (line) => attributions[line - 1]?.entry, rules);
}

/**
 * The findings for a file's changed lines (1-based), given the record that explains each line (undefined:
 * none does): the one decision `intent check` and the editor's diagnostics for saved lines share, so the
 * two report the same lines with the same words. Adjacent lines with the same finding form one range.
 */
export function lineFindings(path: string, changed: readonly number[], recordOf: (line: number) => TraceEntry | undefined, rules: Rules): Finding[] {
  // one verdict per intent, and one (the key undefined) for the records without an intent
  const verdicts = new Map<string | undefined, Verdict>();
  const verdictFor = (intentId: string | undefined): Verdict => {
    let v = verdicts.get(intentId);
    // Stryker disable next-line ConditionalExpression: cost only; judging the same intent again gives the same verdict
    if (!v) {
      // The record's intent is the selection its lines were written under; a record without one is judged
      // as the editor judges an edit with nothing selected (auto-selection).
      // Stryker disable next-line StringLiteral: judge reads a selection's intentId, never its source
      const selection: Selection | undefined = intentId ? { intentId, source: "session" } : undefined;
      v = judge(path, rules, selection);
      verdicts.set(intentId, v);
    }
    return v;
  };

  const findings: Finding[] = [];
  let open: { finding: Finding; key: string } | undefined;
  // Stryker disable next-line UnaryOperator: `last` is read only while a range is open, and a range opens only after `last` is set
  let last = -1;
  for (const line of [...changed].sort((a, b) => a - b)) {
    const entry = recordOf(line);
    const outcome: Outcome = entry ? { entry, verdict: verdictFor(entry.intentId) } : undefined;
    const finding = findingFor(path, line, outcome, rules);
    if (!finding) {
      open = undefined;
      last = line;
      continue;
    }
    // an untraced finding has no record id ("undefined" here) and a code no recorded finding has
    const key = `${finding.code}\u0000${finding.recordId}\u0000${finding.message}`;
    if (open && open.key === key && line === last + 1) open.finding.endLine = line;
    else {
      open = { finding, key };
      findings.push(finding);
    }
    last = line;
  }
  return findings;
}

/**
 * A file's finding where there is no git to tell which lines changed (no base to diff with): what is known
 * is whether the file holds the content the ledger last recorded for it. A file that differs is one finding
 * over all its lines (`lineCount`, at least line 1), as a change no record explains; a file the ledger never
 * recorded, or one that holds its last recorded content, has none.
 */
export function unrecordedContentFinding(
  path: string,
  lineCount: number,
  hash: string,
  lastRecorded: string | null | undefined,
  rules: Rules,
): Finding | undefined {
  if (typeof lastRecorded !== "string" || lastRecorded === hash) return undefined;
  const what = `the file differs from what the ledger last recorded (${shortHash(lastRecorded)}; on disk: ${shortHash(hash)}); without git, which lines changed is not known`;
  const finding = unrecordedFinding(path, 1, rules, what);
  if (finding) finding.endLine = Math.max(1, lineCount);
  return finding;
}

/** A content hash as a person compares two: its algorithm and first 12 hex digits. */
function shortHash(hash: string): string {
  const [algorithm, hex] = hash.includes(":") ? hash.split(":", 2) : ["", hash];
  return `${algorithm ? `${algorithm}:` : ""}${hex!.slice(0, 12)}`;
}

function findingFor(path: string, line: number, outcome: Outcome, rules: Rules): Finding | undefined {
  if (!outcome) return unrecordedFinding(path, line, rules);
  const finding = recordedFinding(path, line, outcome.entry, outcome.verdict);
  return finding && make(rules, finding);
}

/**
 * A changed line nobody recorded, judged as the editor judges an edit, by the intent that would count for
 * it. CI does not know which intent was selected when the line was written, so: the in-progress intents
 * that own the file. None — the change belongs to no work in progress, an error as an out-of-scope edit is
 * in the editor; one or more — work that was done outside the tools, a notice.
 */
function unrecordedFinding(path: string, line: number, rules: Rules, what?: string): Finding | undefined {
  const owners = rules.scopes.owners(path);
  const inProgress = owners.filter((i) => i.status === "IN_PROGRESS");
  // a change with no line of its own says what it was: "src/a.ts: 3 lines removed after line 9, and …"
  const changed = what === undefined ? `${path} changed here` : `${path}: ${what}`;
  if (inProgress.length) {
    return make(rules, {
      path,
      startLine: line,
      endLine: line,
      code: "untraced-change",
      message: `${changed}${what === undefined ? "" : ","} and no ledger record explains it (untraced): the change was made outside intent-lsp and the agent hooks.`,
    });
  }
  const others = owners.length ? ` It is owned by ${owners.map((o) => `${o.id} (${o.status})`).join(", ")}, none in progress.` : " No intent owns it.";
  return make(rules, {
    path,
    startLine: line,
    endLine: line,
    code: "unowned-change",
    message: `${changed}, no ledger record explains it, and no intent in progress owns the file.${others} Start or select an intent that owns it (or add the path to one's scope) and make the change under it.`,
  });
}

function make(rules: Rules, f: Omit<Finding, "severity">): Finding | undefined {
  const severity = rules.settings.severity[f.code];
  return severity === "off" ? undefined : { ...f, severity };
}

/** Problems in active_intents.yaml, at their YAML node: CI must fail on a broken catalogue, as the gate does. */
export function intentsFileFindings(rules: Rules): Finding[] {
  const severity = rules.settings.severity["intent-schema"];
  if (severity === "off") return [];
  return rules.intents.problems.map((p) => ({
    path: INTENTS_FILE,
    startLine: p.start.line + 1,
    endLine: p.end.line + 1,
    column: p.start.character + 1,
    code: "intent-schema" as const,
    // warnings in the file stay warnings, as in the editor
    severity: p.severity === "error" ? severity : "warning",
    message: p.message,
  }));
}

interface CheckSummary {
  error: number;
  warning: number;
  information: number;
  hint: number;
}

export function summarize(findings: readonly Finding[]): CheckSummary {
  const s: CheckSummary = { error: 0, warning: 0, information: 0, hint: 0 };
  for (const f of findings) s[f.severity]++;
  return s;
}

/** The findings counted by severity as every text door words them ("2 errors, 1 note"; "No findings"); `plural` formats one count. */
export function countedFindings(findings: readonly Finding[], plural: (count: number, word: string) => string): string {
  const s = summarize(findings);
  const counted = [
    s.error && plural(s.error, "error"),
    s.warning && plural(s.warning, "warning"),
    s.information && plural(s.information, "note"),
    s.hint && plural(s.hint, "hint"),
  ].filter(Boolean);
  return counted.length ? counted.join(", ") : "No findings";
}
