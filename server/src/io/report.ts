/**
 * Writes `intent report`'s page (docs/INSIGHT.md) for the CLI and the editor's `intent.report` alike:
 * the numbers gathered as `intent stats` gathers them, the page made by engine/reportPage.ts, the file
 * written through the own-file writer (inside the workspace), or, for a path the person named on the command
 * line outside the workspace, where they named it.
 */
import { basename, join } from "node:path";
import { toWorkspacePath } from "../engine/paths";
import type { InsightOptions } from "../engine/insight";
import { reportHtml } from "../engine/reportPage";
import { CACHE_DIR, workspaceCacheDir } from "./cacheDir";
import type { GatheredInsight } from "./insight";
import { writeNamedFile, writeOwnFile } from "./ownFiles";
import { realRootOf, realWorkspacePath } from "./realPath";

/** Where the report goes when no `--out` is given: the cache folder, which git ignores. */
export const DEFAULT_REPORT = `${CACHE_DIR}/report.html`;

export interface ReportOutput {
  html: string;
  insight: GatheredInsight;
}

/** What the report counts: `intent stats`'s options, with the runs of lines and a history (weekly by default). */
export function reportOptions(opts: InsightOptions): InsightOptions {
  return { ...opts, by: opts.by ?? "week", blocks: true };
}

export interface ReportMetaInput {
  version: string;
  script: string;
  now?: Date;
}

/** The page for numbers gathered with `reportOptions(opts)`. */
export function reportFrom(root: string, insight: GatheredInsight, opts: InsightOptions, meta: ReportMetaInput): ReportOutput {
  const html = reportHtml(
    insight,
    {
      workspace: basename(root),
      generatedAt: (meta.now ?? new Date()).toISOString(),
      version: meta.version,
      ...(opts.path ? { path: opts.path } : {}),
      binaryFiles: insight.binaryFiles,
    },
    meta.script,
  );
  return { html, insight };
}

/**
 * Writes the page to `out` (absolute, or relative to the workspace; default DEFAULT_REPORT) and returns
 * its workspace path. A path outside the workspace is refused: the editor's `out` comes from the editor or an
 * agent, and such a path is written only inside the workspace.
 */
export function writeReport(root: string, html: string, out: string | undefined): string {
  const rel = out === undefined ? DEFAULT_REPORT : realWorkspacePath(root, out);
  if (rel === undefined)
    throw new Error(`${out} is outside the workspace ${root}; intent-lsp writes only inside it (write to a path inside, or use --out - and redirect)`);
  if (rel === DEFAULT_REPORT) workspaceCacheDir(root, { create: true });
  writeOwnFile(root, rel, html, { durable: false });
  return rel;
}

/**
 * Writes the page to `out`, an absolute path the person typed (`intent report --out`), and returns the
 * absolute path written. A path inside the workspace goes through the own-file writer as `writeReport` writes
 * it (a link the repository holds never leads the write out of it); a path outside is the person's to choose.
 */
export function writeReportNamed(root: string, html: string, out: string | undefined): string {
  if (out === undefined || toWorkspacePath(root, out) !== undefined || toWorkspacePath(realRootOf(root), out) !== undefined)
    return join(root, writeReport(root, html, out));
  writeNamedFile(out, html, { durable: false });
  return out;
}
