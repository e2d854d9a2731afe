/**
 * What `intent revert` reads and writes (engine/revert.ts decides): the files a contributor's lines may be in,
 * each file's owners as `intent blame` computes them, the earlier contents git holds that replaced lines are
 * put back from, and the reverted files written through io/ownFiles.ts.
 */
import { resolve } from "node:path";
import { attribute, type Attributions } from "../engine/attribution";
import { fileHash, splitLines } from "../engine/hashing";
import type { TraceEntry } from "../engine/ledger/read";
import type { FileRevertInput } from "../engine/revert";
import { candidatePaths, type PathRecords } from "../engine/revertCandidates";
import { boundedGit } from "./boundedGit";
import { catFileBatch } from "./git";
import { gitSourcesOfPath } from "./gitSources";
import type { NamedSources, WorkspaceLedger } from "./ledger/workspaceLedger";
import { readOptional } from "./optionalFile";
import { writeOwnFile } from "./ownFiles";

/** No path named by git: the records' own chain alone. */
const NO_GIT_NAMES: NamedSources = { renamed: [], split: [] };

/** How many of a path's versions git is asked for when looking for the content a record started from. */
const MAX_VERSIONS = 400;
const CAT_FILE_TIMEOUT_MS = 10_000;

/** How long one of git's answers may take: they only add knowledge (renames, earlier contents), and the editor's command waits for them. */
const GIT_TIMEOUT_MS = 10_000;

/**
 * git's answer, bounded in time and size, or undefined where there is no repository, git fails or takes too
 * long: fewer paths and contents to look in, so fewer lines reverted, never a line reverted wrongly.
 */
function gitOr(root: string, args: readonly string[]): string | undefined {
  const answer = boundedGit(root, args, { timeoutMs: GIT_TIMEOUT_MS, maxBytes: 256 * 1024 * 1024 });
  return answer?.ok ? answer.out : undefined;
}

/**
 * The paths the selected contributor's lines may be in (engine/revertCandidates.ts), that exist now: each
 * path's records are read once, for whether any is the selected contributor's and where its content came from.
 */
export function revertCandidates(root: string, ledger: WorkspaceLedger, selected: (e: TraceEntry) => boolean): { matched: boolean; paths: string[] } {
  const records = new Map<string, PathRecords>();
  let matched = false;
  for (const p of ledger.files()) {
    const entries = ledger.entriesFor(p);
    const from = new Set<string>();
    for (const e of entries) {
      if (e.movedFrom !== undefined) from.add(e.movedFrom);
      for (const m of e.movedIn ?? []) from.add(m.from);
    }
    const r = { selected: entries.some(selected), from: [...from] };
    matched ||= r.selected;
    records.set(p, r);
  }
  if (!matched) return { matched, paths: [] };
  const found = candidatePaths(records, gitRenames(root));
  return { matched, paths: [...found].filter((p) => readOptional(resolve(root, p)) !== undefined).sort() };
}

/** Every rename git's history and the index show, as [from, to]. */
function gitRenames(root: string): [string, string][] {
  const out: [string, string][] = [];
  for (const args of [
    ["log", "-M", "--diff-filter=R", "--name-status", "-z", "--format=", "HEAD"],
    ["diff", "--cached", "-M", "--diff-filter=R", "--name-status", "-z"],
  ]) {
    const tokens = (gitOr(root, args) ?? "").split("\0");
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!.replace(/^\n+/, "");
      if (/^R\d*$/.test(t) && i + 2 < tokens.length) {
        out.push([tokens[i + 1]!, tokens[i + 2]!]);
        i += 2;
      }
    }
  }
  return out;
}

/**
 * One file as `intent blame` sees it: its text, every line's owner and the entries they come from (its own
 * records and those of the paths its content came from; git's renames and splits only when the records leave
 * a line unexplained, as blame asks).
 */
export function fileRevertInput(root: string, ledger: WorkspaceLedger, path: string): FileRevertInput | undefined {
  const text = readOptional(resolve(root, path));
  if (text === undefined) return undefined;
  const lines = splitLines(text);
  const owners = (named: NamedSources): { entries: TraceEntry[]; attributions: Attributions } => {
    const entries = ledger.attributionEntries(path, lines, named);
    return { entries, attributions: entries.length ? attribute(entries, lines) : [] };
  };
  let found = owners(NO_GIT_NAMES);
  const count = lines.length > 1 && lines[lines.length - 1] === "" ? lines.length - 1 : lines.length;
  for (let i = 0; i < count; i++) {
    if (found.attributions[i]) continue;
    found = owners(() => gitSourcesOfPath(root, path));
    break;
  }
  return { path, text, ...found };
}

/**
 * The contents git holds under these hashes (`fileHash`): every version of the paths named for each, in the
 * index and in the history (the newest 400 changes of each path), read with one `git cat-file --batch`.
 */
export function contentsByHash(root: string, wanted: ReadonlyMap<string, readonly string[]>): Map<string, string> {
  const found = new Map<string, string>();
  if (!wanted.size) return found;
  const paths = [...new Set([...wanted.values()].flat())];
  const blobs = new Set<string>();
  for (const path of paths) {
    for (const line of (gitOr(root, ["ls-files", "-s", "--", `:(literal)${path}`]) ?? "").split("\n")) {
      const m = /^\d+ ([0-9a-f]{40,64}) /.exec(line);
      if (m) blobs.add(m[1]!);
    }
    const log = gitOr(root, ["log", `-n${MAX_VERSIONS}`, "--format=", "--raw", "--no-abbrev", "--no-renames", "HEAD", "--", `:(literal)${path}`]) ?? "";
    for (const line of log.split("\n")) {
      const m = /^:\d+ \d+ ([0-9a-f]{40,64}) ([0-9a-f]{40,64}) /.exec(line);
      if (!m) continue;
      for (const blob of [m[1]!, m[2]!]) if (!/^0+$/.test(blob)) blobs.add(blob);
    }
  }
  const names = [...blobs];
  const bodies = catFileBatch(root, names, CAT_FILE_TIMEOUT_MS) ?? [];
  bodies.forEach((body) => {
    if (!body) return;
    const text = body.toString("utf8");
    const hash = fileHash(text);
    if (wanted.has(hash) && !found.has(hash)) found.set(hash, text);
  });
  return found;
}

/** Writes a reverted file in place (a temp file renamed over it, its mode kept: io/ownFiles.ts). */
export function writeReverted(root: string, path: string, text: string): void {
  writeOwnFile(root, path, text);
}
