import { join, relative, sep } from "node:path";
import { checkChanges, intentsFileFindings, type ChangedFile } from "../engine/check";
import { chooseBase, diffLines, gitTopLevel, GitError, showFile } from "../io/git";
import type { GitNamed } from "../engine/lineage";
import { gitSourcesOfCheck } from "../io/gitSources";
import { readOptional } from "../io/optionalFile";
import { realRootOf } from "../io/realPath";
import { isSetupFile, setupLines } from "../io/setup/setupLines";
import { CliError, parse, ROOT_OPTION, type Command, type Options } from "./args";
import { CHECK_FORMATS, formatReport, type CheckFormat, type CheckReport } from "./checkReport";
import { checkSummaryMarkdown } from "./checkSummary";
import { changedLinesInsight, type ChangedText } from "../engine/insight";
import { appendStepSummary } from "../io/stepSummary";
import { lineDating } from "../io/commitDates";
import { insightOptions } from "./stats";
import { openWorkspace, readLedger } from "./workspace";

const USAGE = `intent check [--base REF] [--staged] [--format text|json|sarif|github|markdown] [--path GLOB]
             [--since WHEN] [--until WHEN] [--by day|week|month] [--root DIR]

For every line changed between the base and the working tree (or the index with --staged): the ledger
record that explains it, judged against its intent ("out-of-scope" when the file is outside that intent's
scope, "intent-not-in-progress" when the intent is not IN_PROGRESS). A line no record explains is judged by
the in-progress intents that own its file: none ("unowned-change", an error) or some ("untraced-change", a
notice). Lines removed (with none added), deleted files and files overwritten with binary content are judged
by the same rule, at the line where the lines were (line 1 for a whole file). Problems in
active_intents.yaml are listed too.

  --base REF     compare with REF (default: the merge-base of HEAD with origin/HEAD, main or master;
                 else HEAD; with --staged: HEAD)
  --staged       check what the next commit adds: the index against HEAD (for a pre-commit hook)
  --format F     text (default), json, sarif (SARIF 2.1.0), github (workflow annotations, and the
                 pull request summary appended to $GITHUB_STEP_SUMMARY when it is set) or markdown
                 (that summary on stdout, for any other CI): the AI share of the changed lines by
                 intent and model, how many are untraced, and the findings
  --path GLOB    the summary counts only these files' changed lines (findings are not filtered)
  --since WHEN   the summary counts only the changed lines written from WHEN (YYYY-MM-DD, an ISO
  --until WHEN   time, or a git revision: its commit date) / up to WHEN, as \`intent stats\` dates
                 lines: a traced line at its record's time, an untraced line at the time of the commit
                 that brought it onto the current branch (not committed yet: today); it says how many
                 it left out
  --by PERIOD    the summary adds the counted changed lines per day, week or month they were written

The findings and the exit code never depend on --path, --since, --until or --by: they shape only the
summary, so with --format text, json or sarif (no summary) --since, --until and --by are refused (exit 2)
rather than silently checking every line anyway.

The lines \`intent init\` writes into .gitignore, .gitattributes and the agents' hook files are intent-lsp's
own setup and never a finding; every other line of those files is checked.

Exit code 1 when any finding is an error (severities follow the "severity" setting), 0 otherwise.`;

const OPTIONS = {
  ...ROOT_OPTION,
  base: { type: "string" },
  staged: { type: "boolean" },
  format: { type: "string" },
  path: { type: "string" },
  since: { type: "string" },
  until: { type: "string" },
  by: { type: "string" },
} as const satisfies Options;

export const checkCommand: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv, io) {
    const { values } = parse("check", argv, OPTIONS);
    const format = (values.format ?? "text") as CheckFormat;
    if (!CHECK_FORMATS.includes(format)) throw new CliError(`--format ${values.format} is not one of ${CHECK_FORMATS.join(", ")}`, 2);
    const summaryFilters = (["since", "until", "by"] as const).filter((f) => values[f] !== undefined);
    if (summaryFilters.length && format !== "markdown" && format !== "github")
      throw new CliError(
        `${summaryFilters.map((f) => `--${f}`).join(", ")} only shape the pull request summary (--format markdown, or github), and --format ${format} has none: the findings are always those of every changed line. Drop ${summaryFilters.length === 1 ? "it" : "them"} or ask for the summary.`,
        2,
      );
    const ws = openWorkspace(io, values.root);
    const window = insightOptions(ws.root, values, false);
    const top = gitTopLevel(ws.root);
    if (!top) throw new CliError(`${ws.root} is not inside a git repository; \`intent check\` compares git revisions`);
    const inRepo = relative(realRootOf(top), realRootOf(ws.root)).split(sep).join("/");
    const staged = values.staged ?? false;

    let base: ReturnType<typeof chooseBase>;
    let diffs: ReturnType<typeof diffLines>;
    try {
      base = chooseBase(ws.root, values.base, { staged });
      diffs = diffLines(ws.root, base.rev, { staged, includeUntracked: !staged });
    } catch (e) {
      if (e instanceof GitError) throw new CliError(e.message);
      throw e;
    }

    const readChecked = (path: string) => (staged ? showFile(ws.root, "", `./${path}`) : readOptional(join(ws.root, path)));
    // deleted and binary files have no lines to check: they are judged as whole-file changes at line 1
    const changes: ChangedFile[] = diffs.map((d) => ({
      path: d.path,
      changed: d.binary ? [] : withoutSetupLines(ws.root, base.rev, d.path, d.lines, readChecked),
      removed: d.binary ? [] : d.removed,
      ...(d.status === "deleted" ? { whole: "deleted" as const } : d.binary ? { whole: "binary" as const } : {}),
      read: () => readChecked(d.path),
    }));
    const ledger = await readLedger(ws);
    // git's renames and splits, asked once and only when some file's own records leave lines unexplained
    let named: ((path: string) => GitNamed) | undefined;
    const namedSources = (path: string) => () => {
      named ??= gitSourcesOfCheck(ws.root, base.rev, diffs);
      return named(path);
    };
    const checked = checkChanges(changes, ws.rules, (p, lines) => ledger.attributionBatches(p, lines, namedSources(p)));
    const findings = [...intentsFileFindings(ws.rules), ...checked.findings];
    const report: CheckReport = {
      repoPrefix: inRepo ? `${inRepo}/` : "",
      base: base.label,
      baseRevision: base.rev,
      staged,
      checkedFiles: checked.checkedFiles,
      checkedLines: checked.checkedLines,
      findings,
    };
    const summaryFile = format === "github" ? io.env["GITHUB_STEP_SUMMARY"] : undefined;
    if (format === "markdown" || summaryFile) {
      const texts: ChangedText[] = [];
      for (const c of changes) {
        if (c.whole || !c.changed.length || ws.rules.ignore.ignores(c.path)) continue;
        const text = c.read();
        if (text !== undefined) texts.push({ path: c.path, text, changed: c.changed });
      }
      // untraced lines are dated as \`intent stats\` dates them (one walk of git's history), only for a window or periods
      const dating =
        window.since !== undefined || window.until !== undefined || values.by !== undefined
          ? await lineDating(ws.root, staged ? "index" : "worktree")
          : undefined;
      const markdown = checkSummaryMarkdown({
        ...report,
        changed: changedLinesInsight(
          texts,
          (p, lines) => ledger.attributionBatches(p, lines),
          {
            ...(values.path ? { path: values.path } : {}),
            ...(window.since !== undefined ? { since: window.since } : {}),
            ...(window.until !== undefined ? { until: window.until } : {}),
            // --since or --until alone: no per-period table, unlike `intent stats`
            ...(values.by !== undefined && window.by ? { by: window.by } : {}),
            now: Date.now(),
          },
          dating ? (path, _text, ranges) => dating.datesOf(path, ranges) : undefined,
        ),
        ...(values.path ? { path: values.path } : {}),
      });
      if (format === "markdown") io.out(markdown);
      else {
        try {
          appendStepSummary(summaryFile!, markdown);
        } catch (e) {
          io.err(`intent check: could not append the summary to $GITHUB_STEP_SUMMARY (${summaryFile}): ${(e as Error).message}\n`);
        }
      }
    }
    if (format !== "markdown") io.out(formatReport(report, format));
    return findings.some((f) => f.severity === "error") ? 1 : 0;
  },
};

/** `changed` less the lines `intent init` wrote into the file (its own setup, not the user's change). */
function withoutSetupLines(root: string, baseRev: string, path: string, changed: number[], readChecked: (path: string) => string | undefined): number[] {
  if (!isSetupFile(path) || !changed.length) return changed;
  const checked = readChecked(path);
  if (checked === undefined) return changed;
  const own = setupLines(path, showFile(root, baseRev, `./${path}`), checked);
  return own.size ? changed.filter((l) => !own.has(l)) : changed;
}
