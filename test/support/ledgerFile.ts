import { existsSync, readFileSync } from "node:fs";
import type { TempWorkspace } from "./workspace";

/** The workspace's ledger file, read as the records it holds. */

export const LEDGER = ".orchestration/agent_trace.jsonl";

export function ledgerRecords(ws: TempWorkspace): Record<string, any>[] {
  const text = existsSync(ws.path(LEDGER)) ? readFileSync(ws.path(LEDGER), "utf8") : "";
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}
