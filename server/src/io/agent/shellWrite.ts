import { resolveModelId, type ModelSources } from "../modelSources";
import { isProblem, judge, verdictMessage, type Verdict } from "../../engine/gate";
import { fileHash } from "../../engine/hashing";
import type { FileWrite } from "../ledger/recordChange";
import { noteLesson } from "../lessons";
import { shouldRecord } from "../../engine/recordPolicy";
import { gateShell } from "../../engine/agent/shellPolicy";
import { pairMoves } from "../../engine/lineage";
import { removedAll } from "../../engine/agent/cuts";
import { diffTexts } from "../../engine/lineChange";
import { claimedWrite, ledgerView, sessionPastes, type HookChange } from "./sessionCuts";
import { changesSince, dropSnapshot, gitView, readSnapshot, takeShellSnapshot, type ShellSnapshot } from "./shellSnapshot";
import type { GateContext } from "./writeGate";

/**
 * A shell command's file changes in the ledger (docs/AGENTS.md): the pre-tool hook snapshots the working tree
 * (shellSnapshot.ts), the post-tool hook diffs it and appends one record per intent naming every file the
 * command changed under it (one record when all fall under one intent), by the agent and its model, with the
 * command in `metadata["dev.intent-lsp"].tool_call`. Files outside the session's intent are recorded as such,
 * reported back to the agent and noted as a lesson.
 */

export interface ShellReport {
  /** The agent's id for the call, when it has one (pairs the snapshot with the post hook). */
  callId?: string;
  /** The agent's name for its shell tool (`Bash`, `run_shell_command`, …). */
  tool: string;
  command: string;
  model: Omit<ModelSources, "settings">;
}

export type ShellOutcome =
  /** No snapshot was taken before the command (the pre hook is not configured, or it was denied). */
  | { kind: "no-snapshot"; git: boolean }
  | {
      kind: "diffed";
      /** The records written, one per intent the due files fall under (none when no file was due). */
      recordIds: string[];
      recorded: string[];
      /** Files the command changed that the session's intent does not cover, with why. */
      outOfScope: { path: string; message: string }[];
      /** Files changed whose lines cannot be told (binary, too large). */
      unreadable: { path: string; why: string }[];
    };

/** Before a shell command (an allowed or asked one): the snapshot. False when the workspace is not in git. */
export function snapshotBeforeShell(ctx: GateContext, callId: string | undefined, command: string): boolean {
  return takeShellSnapshot(ctx.root, callId ?? ctx.sessionId, command);
}

export async function recordShellWrites(ctx: GateContext, report: ShellReport, toolVersion: string, now?: Date): Promise<ShellOutcome> {
  const key = report.callId ?? ctx.sessionId;
  const snapshot = readSnapshot(ctx.root, key);
  try {
    if (!snapshot) return { kind: "no-snapshot", git: gitView(ctx.root) !== undefined };
    return await recordSince(ctx, report, toolVersion, now, snapshot);
  } finally {
    dropSnapshot(ctx.root, key);
  }
}

async function recordSince(ctx: GateContext, report: ShellReport, toolVersion: string, now: Date | undefined, snapshot: ShellSnapshot): Promise<ShellOutcome> {
  const { changed, unreadable } = changesSince(ctx.root, snapshot);
  // the workspace's saved index: only what was appended since it was saved is read
  // loaded here, not at the top: the pre-write gate, loading this module too, never reads the ledger
  const { hookLedger } = require("../ledger/hookLedgers") as typeof import("../ledger/hookLedgers");
  const ledger = hookLedger(ctx.root, ctx.rules.settings.ledgerPath);
  await ledger.poll();
  const due: FileWrite[] = [];
  const outOfScope: { path: string; message: string }[] = [];
  // `mv`, `git mv`: a created file paired with the deleted one it came from starts from that file's content
  const moves = pairMoves(
    changed.filter((c) => c.before === null && c.after !== null).map((c) => ({ path: c.path, text: c.after! })),
    changed.filter((c) => c.before !== null && c.after === null).map((c) => ({ path: c.path, text: c.before! })),
  );
  const beforeOf = new Map(changed.map((c) => [c.path, c.before]));
  // blocks the command removed from some files and wrote into others, or this session cut earlier, keep
  // their owners (engine/agent/cuts.ts)
  const nowMs = (now ?? new Date()).getTime();
  const movedPaths = new Set([...moves.keys(), ...moves.values()]);
  const lost = changed.flatMap((c) =>
    c.before !== null && !movedPaths.has(c.path)
      ? [{ path: c.path, before: c.before, change: c.after === null ? removedAll(c.before) : diffTexts(c.before, c.after) }]
      : [],
  );
  const changeOf = new Map(lost.map((l) => [l.path, l.change]));
  const pastes = sessionPastes(ctx.root, ctx.sessionId, ledgerView(ledger), nowMs, lost);
  const written: HookChange[] = [];
  for (const c of changed) {
    if (!shouldRecord(c.path, ctx.rules)) continue;
    const verdict = judge(c.path, ctx.rules, ctx.selection);
    if (isProblem(verdict)) outOfScope.push({ path: c.path, message: verdictMessage(c.path, verdict) });
    // the newest record already pins this content: the agent's own Write hook or the editor recorded it
    const newest = ledger.lastPostHash(c.path);
    if (newest !== undefined && newest === (c.after === null ? null : fileHash(c.after))) continue;
    const from = moves.get(c.path);
    if (from !== undefined) {
      due.push({ path: c.path, before: beforeOf.get(from) ?? null, content: c.after, verdict, movedFrom: from });
      continue;
    }
    const change = c.after === null ? undefined : (changeOf.get(c.path) ?? diffTexts(c.before, c.after));
    const movedIn = change && c.after !== null ? pastes.movedInto(c.path, c.before, c.after, change) : [];
    written.push({ path: c.path, before: c.before, after: c.after, change, movedIn });
    due.push({ path: c.path, before: c.before, content: c.after, verdict, ...(change ? { change } : {}), ...(movedIn.length ? { movedIn } : {}) });
  }
  for (const o of outOfScope) {
    try {
      noteLesson(ctx.root, {
        path: o.path,
        intentId: ctx.selection?.intentId ?? null,
        // AGENT.md holds lessons as plain text (its &, < and > escaped), so the command is quoted, not a code span
        text: `a shell command ("${oneLine(report.command)}") changed this file outside the session's intent. ${o.message}`,
        now,
      });
    } catch {
      /* the lesson is a courtesy; the record and the report stand without it */
    }
  }
  // blocks the session pasted into other files before this command cut them keep their owners there
  const claimed = pastes.claimedBack(written);
  for (const c of claimed) due.push(claimedWrite(c, judge(c.path, ctx.rules, ctx.selection)));
  // in-scope files first, then by path: the order of the records (one per intent) and of their files
  due.sort((a, b) => rank(a.verdict) - rank(b.verdict) || (a.path < b.path ? -1 : 1));
  const [first, ...others] = due;
  const recordable = unreadable.filter((u) => shouldRecord(u.path, ctx.rules));
  if (!first) return { kind: "diffed", recordIds: [], recorded: [], outOfScope, unreadable: recordable };
  const { recordChange } = require("../ledger/recordChange") as typeof import("../ledger/recordChange");
  const modelId = resolveModelId({ ...report.model, settings: ctx.rules.settings });
  const outcome = await recordChange({
    root: ctx.root,
    ledgerPath: ctx.rules.settings.ledgerPath,
    ...first,
    ...(others.length ? { otherFiles: others } : {}),
    contributor: modelId ? { type: "ai", modelId } : { type: "ai" },
    sessionId: ctx.sessionId,
    toolVersion,
    toolCall: { tool: report.tool, command: report.command },
    alreadyRecorded: () => false, // asked above, file by file, without indexing the whole ledger
    now,
  });
  if (outcome.written) pastes.keep(written, claimed);
  return {
    kind: "diffed",
    recordIds: outcome.written ? outcome.records.map((r) => r.id) : [],
    recorded: outcome.written ? due.map((d) => d.path) : [],
    outOfScope,
    unreadable: recordable,
  };
}

/** What the agent should hear after the command, or undefined when all is well. */
export function shellFeedback(outcome: ShellOutcome | undefined, command: string): string | undefined {
  if (outcome?.kind !== "diffed") return undefined;
  const parts: string[] = [];
  if (outcome.outOfScope.length) {
    parts.push(
      `intent-lsp: this command changed ${outcome.outOfScope.length === 1 ? "a file" : "files"} outside the session's intent: ` +
        outcome.outOfScope.map((o) => o.message).join(" ") +
        " The change is recorded in the ledger with its scope verdict and noted in .orchestration/AGENT.md. Undo it if it was not meant, or ask the user which intent it belongs to.",
    );
  }
  if (outcome.unreadable.length) {
    parts.push(`intent-lsp did not record ${outcome.unreadable.map((u) => `${u.path} (${u.why})`).join(", ")}, changed by \`${oneLine(command)}\`.`);
  }
  return parts.length ? parts.join(" ") : undefined;
}

/**
 * What to tell the user when a command that looks like it writes files could not be recorded at all (for
 * any other command, silence: most run no writes).
 */
export function shellNotRecorded(outcome: ShellOutcome | undefined, command: string): string | undefined {
  if (outcome?.kind !== "no-snapshot" || gateShell(command).kind !== "ask") return undefined;
  return outcome.git
    ? "intent-lsp did not record this command's file changes: no snapshot was taken before it. Configure the pre-tool hook for shell commands too (see the README)."
    : "intent-lsp did not record this command's file changes: the workspace is not a git repository, and shell writes are told from git's view of the working tree.";
}

function rank(v: Verdict): number {
  return v.kind === "allowed" ? 0 : v.kind === "exempt" ? 1 : 2;
}

const oneLine = (s: string) => (s.length > 200 ? `${s.slice(0, 197)}...` : s).replace(/\s*\n\s*/g, " ");
