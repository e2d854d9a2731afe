/**
 * After an agent's write (PostToolUse, afterFileEdit): one Agent Trace record for exactly the lines the
 * write produced, with the agent as contributor. The lines come from diffing the content before the write
 * with the content after it; "before" is stashed by the pre-write hook, because afterwards it is gone.
 */
import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { resolveModelId, type ModelSources } from "../modelSources";
import { judge } from "../../engine/gate";
import { fileHash } from "../../engine/hashing";
import { applyEdits, changeFromEdits, diffTexts, type StringEdit } from "../../engine/lineChange";
import { realWorkspacePath } from "../realPath";
import { shouldRecord } from "../../engine/recordPolicy";
import { SESSIONS_DIR } from "../../engine/workspaceFiles";
import { readOptional } from "../optionalFile";
import { ensureOwnDir, ownFilePath, removeOwnFile, writeOwnFile } from "../ownFiles";
import type { GateContext } from "./writeGate";
import { pairMoves } from "../../engine/lineage";
import { removedAll } from "../../engine/agent/cuts";
import { claimedWrite, ledgerView, sessionPastes, type CallChange } from "./sessionCuts";

const PENDING_DIR = `${SESSIONS_DIR}/pending`;
/** Stashes older than this belong to calls that never completed (denied by the agent, crashed). */
const STASH_TTL_MS = 6 * 60 * 60 * 1000;

/**
 * `callKey` pairs a pre hook with its post hook: the tool call's id when the agent gives one (two calls on
 * one file can then run at once), else the session id (one call per file at a time).
 */
function stashFile(callKey: string, path: string): string {
  const key = createHash("sha256").update(`${callKey}\u0000${path}`).digest("hex").slice(0, 32);
  return `${PENDING_DIR}/${key}.json`;
}

/** Keeps the file's current content (null: it does not exist) until the write's post hook picks it up. */
export function stashBefore(root: string, callKey: string, path: string): void {
  const content = readOptional(join(root, path)) ?? null;
  ensureOwnDir(root, PENDING_DIR);
  // not fsynced: a stash lost to a crash only means the write goes unrecorded ("unknown-before"), while a
  // flush to disk on every gated tool call costs more than the rest of the gate
  writeOwnFile(root, stashFile(callKey, path), JSON.stringify({ path, content }), { durable: false });
}

/**
 * The stashed content before the write (null: the file did not exist), or undefined when none was stashed.
 * The stash stays on disk until `dropStash`, after the record is appended: a hook service killed between
 * the two leaves it for the call's own process, which answers the call again (launch/hookClient.ts) and
 * records the write once (the ledger's duplicate check skips a record appended already).
 */
function readStash(root: string, callKey: string, path: string): { content: string | null } | undefined {
  let text: string | undefined;
  try {
    text = readOptional(join(root, stashFile(callKey, path)));
  } catch {
    text = undefined; // not a regular file: no stash of ours
  }
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as { path?: unknown; content?: unknown };
    if (parsed.path !== path || (typeof parsed.content !== "string" && parsed.content !== null)) return undefined;
    return { content: parsed.content as string | null };
  } catch {
    return undefined;
  }
}

/** Removes a write's stash once its post hook is done with it (false from removeOwnFile: gone already). */
function dropStash(root: string, callKey: string, path: string): void {
  removeOwnFile(root, stashFile(callKey, path));
}

export function cleanStaleStashes(root: string, now = Date.now()): void {
  const dir = join(root, PENDING_DIR);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    try {
      if (now - statSync(join(dir, n)).mtimeMs > STASH_TTL_MS) removeOwnFile(root, `${PENDING_DIR}/${n}`);
    } catch {
      /* gone already */
    }
  }
}

export type { StringEdit };

/**
 * The content before a set of string replacements, recovered from the content after them by undoing them
 * in reverse order. Only when every undo is unambiguous (its new_string occurs exactly once); otherwise
 * undefined, because a wrong guess would attribute someone else's lines to the agent. A replace_all cannot
 * be undone from the result: occurrences of new_string that were there before look the same as new ones.
 */
export function undoEdits(after: string, edits: readonly StringEdit[]): string | undefined {
  let text = after;
  for (let i = edits.length - 1; i >= 0; i--) {
    const e = edits[i]!;
    if (typeof e.old_string !== "string" || typeof e.new_string !== "string" || e.new_string === "") return undefined;
    if (e.replace_all) return undefined;
    const first = text.indexOf(e.new_string);
    if (first === -1 || text.indexOf(e.new_string, first + 1) !== -1) return undefined;
    text = text.slice(0, first) + e.old_string + text.slice(first + e.new_string.length);
  }
  return text;
}

/** What a tool that made these replacements wrote, given the content before it (see WriteReport.wrote). */
export function wroteByEdits(edits: readonly StringEdit[]): (before: string | null | undefined) => string | undefined {
  return (before) => (typeof before === "string" ? applyEdits(before, edits) : undefined);
}

// --- recording -----------------------------------------------------------------------------------------

export interface WriteReport {
  filePath: string;
  /** The same call id the pre hook was given, if any. */
  callId?: string;
  /** Content before the write when the agent's payload proves it, given the content after (the stash wins). */
  before?: (after: string) => string | null | undefined;
  /**
   * The string replacements the tool made, in order, when its payload says (an Edit, a MultiEdit): they tell
   * exactly which lines changed, where a diff of the two texts could pick the twin of an identical line.
   */
  edits?: readonly StringEdit[];
  /**
   * The content the tool itself wrote, given the content before it (null: the file did not exist; undefined:
   * not known), when its payload says (a Write's content, an Edit's replacements applied to the content before); undefined when it
   * cannot be told. The file on disk may hold more by the time the post hook runs: a person's save, another
   * writer's change made after the tool's.
   */
  wrote?: (before: string | null | undefined) => string | undefined;
  /** Where the model's id may be found; the workspace's settings are the last resort. */
  model: Omit<ModelSources, "settings">;
}

export type PostOutcome =
  /** `id`: the call's first record, naming `path` when it changed (files it gave pasted blocks back to may be in further records). */
  | { kind: "recorded"; id: string; path: string }
  | { kind: "skipped"; why: "outside-workspace" | "not-recorded" | "deleted" | "duplicate" | "unchanged" }
  /** The write happened but which lines it made cannot be told; nothing recorded rather than a guess. */
  | { kind: "unknown-before"; path: string };

/**
 * One record for an agent's write, unless the path is not recorded (`shouldRecord`, as the editor's saves)
 * or the ledger already pins this exact content for it (the same post hook ran twice, or the editor saved it).
 */
export async function recordAgentWrite(ctx: GateContext, w: WriteReport, toolVersion: string, now?: Date): Promise<PostOutcome> {
  // the path the write really landed on, as the pre-write gate judged it (symlinks followed)
  const path = realWorkspacePath(ctx.root, w.filePath);
  if (path === undefined) return { kind: "skipped", why: "outside-workspace" };
  const key = w.callId ?? ctx.sessionId;
  try {
    return await recordTakenWrite(ctx, w, toolVersion, now, { path, stash: readStash(ctx.root, key, path) });
  } finally {
    dropStash(ctx.root, key, path);
  }
}

async function recordTakenWrite(ctx: GateContext, w: WriteReport, toolVersion: string, now: Date | undefined, taken: TakenWrite): Promise<PostOutcome> {
  const { path, stash } = taken;
  if (!shouldRecord(path, ctx.rules)) return { kind: "skipped", why: "not-recorded" };
  const onDisk = readOptional(join(ctx.root, path)) ?? null;
  // a file gone after the call is recorded as removed only when the stash proves it was there (a move's source)
  if (onDisk === null && !(stash && stash.content !== null)) return { kind: "skipped", why: "deleted" };
  const movedFrom = taken.movedFrom;
  // What the tool wrote, when its payload says: the file on disk may hold another writer's change made since
  // (a person's save of the reloaded file), and those lines are not the agent's.
  const toolWrote = movedFrom ? undefined : toolContent(w, stash);
  const after = onDisk !== null && toolWrote !== undefined && fileHash(toolWrote) !== fileHash(onDisk) ? toolWrote : onDisk;
  const ledgerPath = ctx.rules.settings.ledgerPath;
  // The newest record already pins this content (the post hook ran twice, the editor saved it first); older
  // content come back again is a change, recorded as such. The workspace's saved index: only what was
  // appended since it was saved is read.
  // loaded here, not at the top: the ledger's index and reader are for the post-write hook only
  const { hookLedger } = require("../ledger/hookLedgers") as typeof import("../ledger/hookLedgers");
  const ledger = hookLedger(ctx.root, ledgerPath);
  // the size before the read: the read covers at least this much, so a ledger still this long under the
  // lock holds nothing the read did not see
  const checkedAt = liveLedgerSize(ctx.root, ledgerPath);
  await ledger.poll();
  if (ledger.lastPostHash(path) === (after === null ? null : fileHash(after))) return { kind: "skipped", why: "duplicate" };
  const before = movedFrom ? movedFrom.before : stash ? stash.content : after === null ? undefined : w.before?.(after);
  if (before === undefined) return { kind: "unknown-before", path };
  // Loaded here, not at the top: it brings the schema validator, which the pre-write gate (run on every tool
  // call) never needs; a plain require lets the bundler defer it.
  const { recordChange } = require("../ledger/recordChange") as typeof import("../ledger/recordChange");
  const modelId = resolveModelId({ ...w.model, settings: ctx.rules.settings });
  const change =
    movedFrom || after === null ? undefined : ((w.edits && before !== null ? changeFromEdits(before, after, w.edits) : undefined) ?? diffTexts(before, after));
  // blocks this session cut from other files (earlier, or in this same call) keep their owners here, and a
  // block this write cuts that the session pasted into another file earlier keeps its owners there
  const nowMs = (now ?? new Date()).getTime();
  const pastes = movedFrom ? undefined : sessionPastes(ctx.root, ctx.sessionId, ledgerView(ledger), nowMs, taken.callChanges);
  const movedIn = pastes && change && after !== null ? pastes.movedInto(path, before, after, change) : [];
  const written = [{ path, before, after, change, movedIn }];
  const claimed = pastes ? pastes.claimedBack(written) : [];
  const outcome = await recordChange({
    root: ctx.root,
    ledgerPath,
    path,
    content: after,
    before,
    ...(change ? { change } : {}),
    ...(movedIn.length ? { movedIn } : {}),
    verdict: judge(path, ctx.rules, ctx.selection),
    ...(movedFrom ? { movedFrom: movedFrom.path } : {}),
    ...(after !== onDisk && onDisk !== null ? { onDiskHash: fileHash(onDisk) } : {}),
    ...(claimed.length ? { otherFiles: claimed.map((c) => claimedWrite(c, judge(c.path, ctx.rules, ctx.selection))) } : {}),
    contributor: modelId ? { type: "ai", modelId } : { type: "ai" },
    sessionId: ctx.sessionId,
    toolVersion,
    alreadyRecorded: () => false, // asked above
    // and again under the ledger's lock: another hook of this same write (two agents' hooks for one tool
    // call) may have appended it meanwhile; a ledger no longer than when it was read holds nothing new
    recordedUnderLock: async (p, h) => {
      const now = liveLedgerSize(ctx.root, ledgerPath);
      if (now !== undefined && now === checkedAt) return false;
      await ledger.poll();
      return ledger.lastPostHash(p) === h;
    },
    now,
  });
  if (outcome.written && pastes) pastes.keep(written, claimed);
  return outcome.written ? { kind: "recorded", id: outcome.records[0]!.id, path } : { kind: "skipped", why: outcome.reason };
}

/**
 * The content the tool wrote, from its payload and the content stashed before it; undefined when the payload
 * does not say (a tool that reports no content, replacements with no stash to apply them to).
 */
function toolContent(w: WriteReport, stash: { content: string | null } | undefined): string | undefined {
  return w.wrote?.(stash ? stash.content : undefined);
}

/** A write's real path and its stash, read by its caller, and the file it was moved from (a call naming several files). */
interface TakenWrite {
  path: string;
  stash: { content: string | null } | undefined;
  movedFrom?: { path: string; before: string };
  /** The call's other changed files: a block one of them lost, pasted into another, keeps its owners. */
  callChanges?: readonly CallChange[];
}

/**
 * One record per file for a call naming several files (a move tool's source and destination, a patch): the
 * stashes are taken first, so that a created file paired with a deleted one (engine/lineage.ts `pairMoves`)
 * is recorded as moved from it, starting from its content, and its lines keep their authors.
 */
export async function recordAgentWrites(ctx: GateContext, reports: readonly WriteReport[], toolVersion: string, now?: Date): Promise<PostOutcome[]> {
  if (reports.length < 2) return Promise.all(reports.map((w) => recordAgentWrite(ctx, w, toolVersion, now)));
  const taken = reports.map((w) => {
    const path = realWorkspacePath(ctx.root, w.filePath);
    if (path === undefined) return undefined;
    const key = w.callId ?? ctx.sessionId;
    return { path, key, stash: readStash(ctx.root, key, path), after: readOptional(join(ctx.root, path)) ?? null };
  });
  try {
    return await recordTakenWrites(ctx, reports, toolVersion, now, taken);
  } finally {
    for (const t of taken) if (t) dropStash(ctx.root, t.key, t.path);
  }
}

async function recordTakenWrites(
  ctx: GateContext,
  reports: readonly WriteReport[],
  toolVersion: string,
  now: Date | undefined,
  taken: readonly ({ path: string; stash: { content: string | null } | undefined; after: string | null } | undefined)[],
): Promise<PostOutcome[]> {
  const created = taken.flatMap((t) => (t && t.stash?.content === null && t.after !== null ? [{ path: t.path, text: t.after }] : []));
  const deleted = taken.flatMap((t) => (t && typeof t.stash?.content === "string" && t.after === null ? [{ path: t.path, text: t.stash.content }] : []));
  const moves = pairMoves(created, deleted);
  const beforeOf = new Map(deleted.map((d) => [d.path, d.text]));
  const cutFrom = taken.flatMap((t) =>
    t && typeof t.stash?.content === "string" && !moves.has(t.path) && ![...moves.values()].includes(t.path)
      ? [{ path: t.path, before: t.stash.content, change: t.after === null ? removedAll(t.stash.content) : diffTexts(t.stash.content, t.after) }]
      : [],
  );
  const out: PostOutcome[] = [];
  for (let i = 0; i < reports.length; i++) {
    const t = taken[i];
    const from = t ? moves.get(t.path) : undefined;
    const movedFrom = from !== undefined ? { path: from, before: beforeOf.get(from)! } : undefined;
    out.push(
      t
        ? await recordTakenWrite(ctx, reports[i]!, toolVersion, now, {
            path: t.path,
            stash: t.stash,
            callChanges: cutFrom,
            ...(movedFrom ? { movedFrom } : {}),
          })
        : { kind: "skipped", why: "outside-workspace" },
    );
  }
  return out;
}

/** The live ledger file's size (undefined: absent, or not safely reachable). */
function liveLedgerSize(root: string, ledgerPath: string): number | undefined {
  try {
    return statSync(ownFilePath(root, ledgerPath)).size;
  } catch {
    return undefined;
  }
}
