/**
 * Before adoption (docs/ATTRIBUTION.md "Before adoption"): the code a repository already had when it took up
 * intent-lsp is history from before the ledger, not work nobody recorded. `intent init` records the adoption
 * point, a commit, in `.orchestration/adoption.json`; a line no record explains that is still as it was at
 * that commit counts as "before adoption", with the author git gives it there, and only the other
 * unexplained lines are "untraced". The rule is here once, for blame, hover, stats and the report.
 */
import { diffTexts } from "./lineChange";

/** The adoption point as `.orchestration/adoption.json` holds it. */
export interface Adoption {
  /** The commit whose code predates the ledger (full hex name). */
  commit: string;
  /** When intent-lsp was taken up (ISO 8601), as `intent init` wrote it: shown, never computed with. */
  date: string;
}

/** Who git says wrote a line at the adoption commit (`git blame --porcelain` there). */
export interface GitAuthor {
  name: string;
  /** The author time, ISO 8601. */
  date: string;
  commit: string;
}

/** A line kept from before adoption: its line at the adoption commit (1-based) and, when git said, its author there. */
export interface AdoptedLine {
  line: number;
  author?: GitAuthor;
}

const COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** The adoption file's text read; a problem (what is wrong, where, what to do) when it cannot be used. */
export function parseAdoption(text: string): Adoption | { problem: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { problem: `it is not JSON (${(e as Error).message}); run \`intent init\` to write it again after removing it` };
  }
  const o = raw as { commit?: unknown; date?: unknown } | null;
  if (typeof o !== "object" || o === null || Array.isArray(o)) return { problem: 'it must be one object, {"commit": "<hex>", "date": "<ISO 8601>"}' };
  if (typeof o.commit !== "string" || !COMMIT.test(o.commit)) return { problem: '"commit" must be a full commit name (40 or 64 lower-case hex digits)' };
  if (typeof o.date !== "string" || Number.isNaN(Date.parse(o.date))) return { problem: '"date" must be an ISO 8601 time' };
  return { commit: o.commit, date: o.date };
}

/** The adoption file's text, as `intent init` writes it. */
export function adoptionText(adoption: Adoption): string {
  return `${JSON.stringify({ commit: adoption.commit, date: adoption.date }, null, 2)}\n`;
}

/**
 * For each line of `now` (0-based index), the line of `then` (the file at the adoption commit) it still is,
 * or undefined: the same line diff that carries a line's owner through a write decides what was kept, so a
 * re-indented line is still the one it was (not authorship, as everywhere in the ledger).
 */
export function keptSinceAdoption(then: string, now: string, authors: readonly (GitAuthor | undefined)[] = []): (AdoptedLine | undefined)[] {
  const change = diffTexts(then, now);
  const out: (AdoptedLine | undefined)[] = new Array(change.newCount).fill(undefined);
  for (const seg of change.carried) {
    for (let k = 0; k < seg.length; k++) {
      const author = authors[seg.oldStart + k];
      out[seg.newStart + k] = { line: seg.oldStart + k + 1, ...(author ? { author } : {}) };
    }
  }
  return out;
}

/**
 * `git blame --porcelain` read: each line's author (by its 0-based index in the blamed file). Undefined when
 * the text is not porcelain output (git changed its format, or was stopped halfway): no author is guessed.
 */
export function parseBlamePorcelain(text: string): (GitAuthor | undefined)[] | undefined {
  const commits = new Map<string, { name?: string; time?: number }>();
  const out: (GitAuthor | undefined)[] = [];
  const lines = text.split("\n");
  let current: { sha: string; final: number } | undefined;
  for (const line of lines) {
    if (line.startsWith("\t")) {
      if (!current) return undefined;
      const c = commits.get(current.sha)!;
      out[current.final - 1] =
        c.name !== undefined && c.time !== undefined ? { name: c.name, date: new Date(c.time * 1000).toISOString(), commit: current.sha } : undefined;
      current = undefined;
      continue;
    }
    // "<sha> <line in the original file> <line in the final file>[ <lines in this group>]"
    const header = /^([0-9a-f]{40}|[0-9a-f]{64}) \d+ (\d+)(?: \d+)?$/.exec(line);
    if (header) {
      current = { sha: header[1]!, final: Number(header[2]) };
      if (!commits.has(current.sha)) commits.set(current.sha, {});
      continue;
    }
    if (!current) {
      if (line === "") continue;
      return undefined;
    }
    const c = commits.get(current.sha)!;
    if (line.startsWith("author ")) c.name = line.slice(7);
    else if (line.startsWith("author-time ")) c.time = Number(line.slice(12));
  }
  return current ? undefined : out;
}

/**
 * Lines `start`..`end` (1-based) that no record explains, as runs: "beforeAdoption" where `adopted` has the
 * line (0-based), else "untraced". What blame rows would say of each line, without making the rows.
 */
export function unexplainedRuns(
  start: number,
  end: number,
  adopted: readonly (AdoptedLine | undefined)[],
): { start: number; end: number; author: "untraced" | "beforeAdoption" }[] {
  const out: { start: number; end: number; author: "untraced" | "beforeAdoption" }[] = [];
  for (let line = start; line <= end; line++) {
    const author = adopted[line - 1] ? "beforeAdoption" : "untraced";
    const last = out.at(-1);
    if (last && last.author === author) last.end = line;
    else out.push({ start: line, end: line, author });
  }
  return out;
}
