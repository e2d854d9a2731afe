import { expect } from "vitest";
import { BLOCK_FIELDS } from "../../server/src/engine/blockTable";

/**
 * What a report page carries in its `insight-data` element: the numbers (`insight`, as `intent stats
 * --json` gives them, less the per-file list the page never shows), and the blocks behind them, one array of
 * BLOCK_FIELDS numbers per block (server/src/engine/blockTable.ts) into `strings`.
 */
export interface ReportPageData {
  /** The page's numbers, compared whole to `intent stats --json`. */
  insight: any;
  strings: string[];
  rows: number[][];
}

export function reportPageData(html: string): ReportPageData {
  const element = /<script type="application\/json" id="insight-data">(.*?)<\/script>/s.exec(html);
  expect(element, "the page has no insight-data element").not.toBeNull();
  const data = JSON.parse(element![1]!) as { insight: unknown; blocks: { strings: string[]; rows: number[] } };
  const rows: number[][] = [];
  for (let i = 0; i < data.blocks.rows.length; i += BLOCK_FIELDS) rows.push(data.blocks.rows.slice(i, i + BLOCK_FIELDS));
  return { insight: data.insight, strings: data.blocks.strings, rows };
}
