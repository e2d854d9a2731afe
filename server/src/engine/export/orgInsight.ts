/**
 * `intent org stats` and `intent org report` (docs/EXPORT.md): an organisation's numbers from the exported
 * tables. The SQL engine sums each file's runs of lines into the groups `intent stats` counts a file by
 * (docs/sql/file_tallies.sql); those groups go through the very counting `intent stats` uses
 * (`InsightBuilder.addTally`), so one repository's numbers are its own `intent stats`'s, and every rule of the
 * breakdowns stays in engine/insight.ts. Adds the repository (and team) dimension.
 */
import { addLines, emptyCounts, type LineCounts } from "../authorship";
import type { Confidence } from "../confidence";
import { blocksOf, byLines, InsightBuilder, type Insight, type Run, type TallyGroup } from "../insight";
import type { OrgDimensions } from "../reportPage";
import { authorOfKind } from "./exportTables";

/** A row of docs/sql/file_tallies.sql. */
export interface TallyRow {
  repo: string;
  path: string;
  kind: string;
  out_of_scope: boolean;
  intent: string | null;
  model: string | null;
  person: string | null;
  confidence: string | null;
  line_count: number;
}

/** A row of docs/sql/out_of_scope_runs.sql. */
export interface OutOfScopeRow {
  repo: string;
  path: string;
  start_line: number;
  end_line: number;
  kind: string;
  intent: string | null;
  model: string | null;
  person: string | null;
  record_id: string | null;
  written_at: string | null;
  confidence: string | null;
}

export interface OrgInput {
  tallies: readonly TallyRow[];
  outOfScope: readonly OutOfScopeRow[];
  /** Each repository's binary files (the `repos` table). */
  binaryFiles: ReadonlyMap<string, number>;
  /** Repository → team, when a mapping names teams. */
  teams?: ReadonlyMap<string, string>;
}

export type OrgInsight = Insight & OrgDimensions & { binaryFiles: number; repos: number };

export const NO_TEAM = "(no team)";

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

function authorOf(kind: string, where: string) {
  const author = authorOfKind(kind);
  if (!author)
    throw new Error(`the exported lines of ${where} have kind "${kind}", which is none this version knows; export them again with this version of intent-lsp`);
  return author;
}

/**
 * An organisation's numbers, one repository at a time (so that the rows of only one are held at once).
 * `qualify`: several repositories are counted, and each path is prefixed with its repository
 * (`owner/name/src/a.ts`), so files and folders of different repositories stay apart.
 */
export class OrgCounter {
  private readonly builder = new InsightBuilder();
  private readonly byRepo = new Map<string, LineCounts>();
  private readonly byTeam = new Map<string, LineCounts>();
  private readonly repos = new Set<string>();

  constructor(
    private readonly qualify: boolean,
    private readonly teams?: ReadonlyMap<string, string>,
  ) {}

  /** Rows of docs/sql/file_tallies.sql and out_of_scope_runs.sql, sorted by repository and path as they sort them. */
  add(tallies: readonly TallyRow[], outOfScope: readonly OutOfScopeRow[]): void {
    const outRuns = runsByFile(outOfScope);
    for (let i = 0; i < tallies.length; ) {
      const { repo, path } = tallies[i]!;
      this.repos.add(repo);
      const groups: TallyGroup[] = [];
      for (; i < tallies.length && tallies[i]!.repo === repo && tallies[i]!.path === path; i++) {
        const t = tallies[i]!;
        const g: TallyGroup = {
          author: authorOf(t.kind, `${repo}/${path}`),
          outOfScope: t.out_of_scope,
          ...(t.intent !== null ? { intent: t.intent } : {}),
          ...(t.model !== null ? { model: t.model } : {}),
          ...(t.person !== null ? { person: t.person } : {}),
          ...(t.confidence !== null ? { confidence: t.confidence as Confidence } : {}),
          lines: t.line_count,
        };
        groups.push(g);
        countIn(this.byRepo, repo, g);
        if (this.teams) countIn(this.byTeam, this.teams.get(repo) ?? NO_TEAM, g);
      }
      const runs = outRuns.get(`${repo}\u0000${path}`) ?? [];
      this.builder.addTally(this.qualify ? `${repo}/${path}` : path, { groups, outOfScope: blocksOf(runs) });
    }
  }

  result(binaryFiles: number): OrgInsight {
    return {
      ...this.builder.result(),
      binaryFiles,
      repos: this.repos.size,
      byRepo: sortedCounts(this.byRepo, "repo"),
      ...(this.teams ? { byTeam: sortedCounts(this.byTeam, "team") } : {}),
    };
  }
}

/** The numbers of `input`'s repositories at once (`OrgCounter`). */
export function orgInsight(input: OrgInput): OrgInsight {
  const counter = new OrgCounter(new Set(input.tallies.map((t) => t.repo)).size > 1, input.teams);
  counter.add(input.tallies, input.outOfScope);
  let binaryFiles = 0;
  for (const n of input.binaryFiles.values()) binaryFiles += n;
  return counter.result(binaryFiles);
}

function countIn(map: Map<string, LineCounts>, key: string, g: TallyGroup): void {
  let c = map.get(key);
  if (!c) {
    c = emptyCounts();
    map.set(key, c);
  }
  addLines(c, g.author, g.outOfScope, g.lines);
}

function sortedCounts<K extends string>(m: Map<string, LineCounts>, key: K): ({ [P in K]: string } & { lines: LineCounts })[] {
  return byLines(m).map(([k, lines]) => ({ [key]: k, lines }) as { [P in K]: string } & { lines: LineCounts });
}

/** The out-of-scope runs of each file, by "repo\0path". */
function runsByFile(rows: readonly OutOfScopeRow[]): Map<string, Run[]> {
  const out = new Map<string, Run[]>();
  for (const r of rows) {
    const key = `${r.repo}\u0000${r.path}`;
    let runs = out.get(key);
    if (!runs) {
      runs = [];
      out.set(key, runs);
    }
    runs.push({
      start: r.start_line,
      end: r.end_line,
      author: authorOf(r.kind, `${r.repo}/${r.path}`),
      intent: opt(r.intent),
      model: opt(r.model),
      person: opt(r.person),
      traceId: opt(r.record_id),
      timestamp: opt(r.written_at),
      outOfScope: true,
      confidence: opt(r.confidence) as Confidence | undefined,
    } as Run);
  }
  return out;
}
