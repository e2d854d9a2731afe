/**
 * Measures an intent's drift (engine/drift.ts) in a workspace: the lines git counts as changed since the
 * commit the ledger says the intent started (or completed) at, in files of its scope, each with the intent
 * of the record that explains it now (the attribution `intent blame` gives). Runs git without blocking.
 */
import { join } from "node:path";
import { attributeChanged } from "../engine/blame";
import type { EntryBatches } from "../engine/check";
import { driftBase, driftOf, type ChangedLine, type Drift } from "../engine/drift";
import { splitLines } from "../engine/hashing";
import type { Intent } from "../engine/intents/model";
import type { LifecycleEvent } from "../engine/ledger/lifecycle";
import { shouldRecord } from "../engine/recordPolicy";
import type { Rules } from "../engine/rules";
import { compileScope, scopeMatches } from "../engine/scope";
import { textLines } from "../engine/lines";
import { diffSince, gitAsync } from "./changedLines";
import { readOptional } from "./optionalFile";

/** Undefined when there is nothing to say: no recorded start or completion, git unavailable, or no drift. */
export async function measureDrift(
  root: string,
  rules: Rules,
  intent: Intent,
  events: readonly LifecycleEvent[],
  entryBatches: EntryBatches,
): Promise<Drift | undefined> {
  const base = driftBase(intent, events);
  if (!base) return undefined;
  let files: { path: string; lines: number[] | "all" }[];
  try {
    const diff = await diffSince(root, base.revision);
    files = diff.filter((d) => !d.binary && d.status !== "deleted").map((d) => ({ path: d.path, lines: d.lines }));
    const untracked = (await gitAsync(root, ["ls-files", "--others", "--exclude-standard", "-z"])).split("\0").filter(Boolean);
    for (const path of untracked) files.push({ path, lines: "all" });
  } catch {
    return undefined; // not a repository, or the commit is gone (a rewritten history): nothing is said rather than a guess
  }
  const scope = compileScope(intent.ownedScope);
  const changed: ChangedLine[] = [];
  for (const file of files) {
    if (!scopeMatches(scope, file.path) || !shouldRecord(file.path, rules)) continue;
    const text = readOptional(join(root, file.path));
    if (text === undefined) continue;
    const lines = splitLines(text);
    const numbers = file.lines === "all" ? textLines(text).map((_, i) => i + 1) : file.lines;
    if (!numbers.length) continue;
    const owners = attributeChanged(lines, numbers, entryBatches(file.path));
    for (const line of numbers) changed.push({ path: file.path, line, intent: owners[line - 1]?.entry.intentId ?? null });
  }
  return driftOf(intent, base, changed);
}
