/**
 * The entries of the ledger line being indexed, in columns used again for every line (a million records make
 * no garbage here): what `summarizeLine` visits when the index reads a line itself, or what a chunk summary
 * made in another thread holds for it (chunkSummary.ts).
 */
import type { SummaryCursor } from "./chunkSummary";
import { isoTime } from "./entryOrder";
import type { ParseResult, StringPool } from "./read";
import { summarizeLine, type SummaryVisitor } from "./recordSummary";

export class LineEntries {
  readonly paths: string[] = [];
  readonly intents: (string | undefined)[] = [];
  readonly posts: (string | null | undefined)[] = [];
  /** Whether the line is a trace record (of any dialect), with or without entries. */
  record = false;
  /** Its record's time (`isoTime` of its timestamp), -Infinity when it has none. */
  time = Number.NEGATIVE_INFINITY;
  private readonly visit: SummaryVisitor = {
    entry: (path, intentId, postHash) => {
      this.paths.push(path);
      this.intents.push(intentId);
      this.posts.push(postHash);
    },
  };

  /** Reads ledger line `line` (`text`): what it holds is here after; what the full reader reported of it, if it read it. */
  summarize(text: string, line: number, pool: StringPool): ParseResult | undefined {
    this.clear();
    const summary = summarizeLine(text, line, pool, this.visit);
    const time = isoTime(summary.timestamp);
    this.record = summary.record;
    this.time = Number.isNaN(time) ? Number.NEGATIVE_INFINITY : time;
    return summary.parsed;
  }

  /** Takes the cursor's next summarized line, a record: what it holds is here after. */
  fromSummary(cursor: SummaryCursor): void {
    this.clear();
    this.record = true;
    this.time = cursor.take(this.visit);
  }

  private clear(): void {
    this.paths.length = this.intents.length = this.posts.length = 0;
  }
}
