/**
 * What the engine does on each agent hook event, whatever the agent's protocol: before a tool call (gate
 * it), after a write (record it), at session start and end (the session file). The doors in cli/hook/ read
 * their agent's payload into these calls and write the answer in their agent's JSON.
 */
import { dirname, join, resolve } from "node:path";
import { noteLesson } from "../lessons";
import { INTENTS_FILE } from "../../engine/workspaceFiles";
import { lstatSync } from "node:fs";
import { findIntentsRoot, resolveWorkspaceRoot } from "../workspaceRoot";
import { cleanStaleStashes, recordAgentWrite, recordAgentWrites, stashBefore, type PostOutcome, type WriteReport } from "./agentWrite";
import { endAgentSession, holdSession, keepDenials, touchAgentSession } from "./session";
import { defaultSettings } from "@shared/settings";
import { readSession } from "../sessionFiles";
import { denialsAfter, tripped, withStop } from "../../engine/agent/circuitBreaker";
import { removeSessionCuts } from "./sessionCuts";
import type { SessionRecord } from "../../engine/sessions";
import { isProblem } from "../../engine/gate";
import { gateShell } from "../../engine/agent/shellPolicy";
import { recordShellWrites, shellFeedback, shellNotRecorded, snapshotBeforeShell, type ShellOutcome, type ShellReport } from "./shellWrite";
import { GitError } from "../git";
import { UnsafeWriteError } from "../ownFiles";
import { keepRuleState, ledgerMark, ledgerRewrite, readRuleState, takeRuleStateBack } from "./ruleWatch";
import { ruleChangeReport, ruleChanges } from "../../engine/agent/ruleState";
import type { ToolCall } from "../../engine/agent/toolCall";
import { gateWrite, loadGateContext, type GateContext } from "./writeGate";
import { deny, internalErrorDecision, type GateDecision } from "../../engine/agent/decision";

export interface HookEnvironment {
  /** `--root DIR` from the command line, which wins over the payload's folders. */
  rootOverride?: string;
  env: NodeJS.ProcessEnv;
  /** The folder the hook was started in: the session's folder when the payload names none. */
  cwd: string;
  toolVersion: string;
  now?: Date;
}

export interface HookSession {
  /** Where the payload says the agent works (cwd or the first workspace root). */
  cwd: string;
  sessionId: string;
  client: string;
}

/**
 * The workspace and its rules, or undefined when there is nothing to enforce (no intents file anywhere).
 * `filePath`, for a tool call on a file: an agent started above the workspace (a monorepo root) is still
 * gated by the workspace that holds the file, as the editor is.
 */
export function openAgentWorkspace(henv: HookEnvironment, s: HookSession, filePath?: string | readonly string[]): GateContext | undefined {
  let root = resolveWorkspaceRoot(henv.rootOverride, s.cwd, henv.cwd)?.root;
  if ((!root || !hasIntentsFile(root)) && filePath !== undefined && !henv.rootOverride) {
    // the first file of the call that is in a workspace with intents: its workspace judges every file the
    // call names, so a file outside it is denied there, whichever the call names first
    for (const p of typeof filePath === "string" ? [filePath] : filePath) {
      root = findIntentsRoot(dirname(resolve(s.cwd, p)));
      if (root) break;
    }
  }
  if (!root || !hasIntentsFile(root)) return undefined;
  const ws = { root };
  // every call is a sign of life: the heartbeat keeps the session listed while the agent works
  const session = touchAgentSession(ws.root, s.sessionId, { client: s.client, now: henv.now });
  return { ...loadGateContext(ws.root, s.sessionId, session), ...(henv.now ? { now: henv.now.getTime() } : {}) };
}

/** Every file a tool call names (a write's), for `openAgentWorkspace`. */
export function callPaths(call: ToolCall): readonly string[] | undefined {
  return call.kind === "write" ? [call.filePath, ...(call.otherPaths ?? [])] : undefined;
}

/**
 * Whether the workspace has an intents file: anything under that name counts (a dangling link, a FIFO, a
 * link out of the workspace), so that reading it fails loudly and the gate denies, rather than taking the
 * workspace for one without intents and letting every write through.
 */
function hasIntentsFile(root: string): boolean {
  try {
    lstatSync(join(root, INTENTS_FILE));
    return true;
  } catch {
    return false;
  }
}

/**
 * The gate's decision on a tool call, through the circuit breaker. `callId`: the agent's id for this tool
 * call, when it has one; it pairs the stash with the post hook.
 */
export function beforeToolUse(ctx: GateContext | undefined, call: ToolCall, callId?: string): GateDecision {
  if (!ctx) return { kind: "none", code: "no-intents-file" };
  return throughBreaker(ctx, gateCall(ctx, call, callId));
}

/**
 * `d` as the circuit breaker leaves it (engine/agent/circuitBreaker.ts), the session's denials kept in its
 * file. A file that cannot be written costs the breaker its memory, never the decision: what is denied stays
 * denied.
 */
function throughBreaker(ctx: GateContext, d: GateDecision): GateDecision {
  const settings = ctx.rules.settings.circuitBreaker;
  const now = ctx.now ?? Date.now();
  const session = ctx.session ?? readSession(ctx.root, ctx.sessionId);
  const times = denialsAfter(session?.denials ?? [], d, now, settings);
  if (times === undefined) return d;
  if (session) {
    try {
      keepDenials(ctx.root, session, times);
    } catch {
      /* the decision stands; the breaker forgets this call */
    }
  }
  return d.kind === "deny" && tripped(times, now, settings) ? withStop(d, times.length, settings) : d;
}

function gateCall(ctx: GateContext, call: ToolCall, callId?: string): GateDecision {
  if (ctx.held !== undefined && call.kind !== "other") {
    return deny(
      "rules-changed",
      `A shell command of this session changed intent-lsp's rules without the user's approval (${ctx.held}), so its writes are denied. Tell the user what changed; once they have looked, they select for this session again: \`intent select ID --session ${ctx.sessionId}\`.`,
    );
  }
  switch (call.kind) {
    case "write": {
      // a move or a multi-file edit is allowed only if every file it names is
      let decision = beforeWrite(ctx, call.filePath, call.expectedHash, callId);
      for (const other of call.otherPaths ?? []) {
        if (decision.kind !== "allow") break;
        decision = beforeWrite(ctx, other, undefined, callId);
      }
      if (call.runs === undefined || decision.kind === "deny") return decision;
      // a tool that also runs what it is given: that is judged as a shell command is, never allowed outright
      // (the agent's own permission rules still apply to it), and recorded as one (toolCall.ts `recordedAs`)
      return beforeCommand(ctx, callId, call.runs, decision.kind === "allow" ? gateShell(call.runs, call.runsCode) : decision);
    }
    case "shell":
      return beforeCommand(ctx, callId, call.command, gateShell(call.command, call.code));
    case "write-without-path":
      if (call.why) return deny("bad-path", call.why);
      return internalErrorDecision(new Error(`${call.tool} call without tool_input.file_path`));
    case "other":
      return { kind: "none", code: "not-gated" };
  }
}

/** `decision` on a command about to run, with the snapshot its post hook records from, unless it is denied. */
function beforeCommand(ctx: GateContext, callId: string | undefined, command: string, decision: GateDecision): GateDecision {
  if (decision.kind === "deny") return decision;
  try {
    // the user asked about a change of the rules (a command's, or a running tool's write to our files) approves it
    snapshotShell(ctx, callId, command, decision.kind === "ask" && (decision.code === "rule-command" || decision.code === "rule-file"));
  } catch (err) {
    // a committed link where the state before the command is kept: nothing is written, and nothing runs
    // that could not be recorded
    if (err instanceof UnsafeWriteError) {
      return deny(
        "outside-workspace",
        `${err.message} intent-lsp keeps the state before a shell command there to record what the command changes, so the command is denied. Ask the user to replace the link.`,
      );
    }
    throw err;
  }
  return decision;
}

/** A shell command reported by its own event (Cursor's beforeShellExecution). */
export function beforeShell(ctx: GateContext | undefined, command: string, callId?: string): GateDecision {
  return beforeToolUse(ctx, { kind: "shell", command }, callId);
}

/**
 * The working tree's state before a shell command, for its post hook to record what it changed. A git
 * failure only costs the record (said after the command), never the command itself.
 */
function snapshotShell(ctx: GateContext, callId: string | undefined, command: string, approved: boolean): void {
  // the rules and the ledger as they stand, to tell after the command whether it changed them (git or not);
  // `approved`: the user is asked about it as a change of the rules, so one it makes is theirs
  const ledger = ledgerMark(ctx.root, ctx.rules.settings.ledgerPath);
  keepRuleState(ctx.root, callId ?? ctx.sessionId, {
    ...readRuleState(ctx.root, ctx.sessionId, ctx.rules),
    ...(approved ? { approved } : {}),
    ...(ledger ? { ledger } : {}),
  });
  try {
    snapshotBeforeShell(ctx, callId, command);
  } catch (err) {
    if (!(err instanceof GitError)) throw err;
  }
}

/**
 * After a shell command: the records of the files it changed (one per intent they fall under), and whether it
 * changed the rules; what to tell the agent and the user. `session` finds the workspace when the command
 * removed the intents file.
 */
export async function afterShell(
  ctx: GateContext | undefined,
  henv: HookEnvironment,
  report: ShellReport,
  session?: HookSession,
): Promise<{ outcome?: ShellOutcome; toAgent?: string; toUser?: string }> {
  const rulesChanged = rulesChangedBy(ctx, henv, report, session);
  if (!ctx) return rulesChanged ? { toAgent: rulesChanged } : {};
  const outcome = await recordShellWrites(ctx, report, henv.toolVersion, henv.now);
  const toAgent = [rulesChanged, shellFeedback(outcome, report.command)].filter(Boolean).join(" ");
  const toUser = shellNotRecorded(outcome, report.command);
  return { outcome, ...(toAgent ? { toAgent } : {}), ...(toUser ? { toUser } : {}) };
}

/** The report of a change to the rules since the state kept before the command, if any. */
function rulesChangedBy(ctx: GateContext | undefined, henv: HookEnvironment, report: ShellReport, session: HookSession | undefined): string | undefined {
  const root = ctx?.root ?? (session ? resolveWorkspaceRoot(henv.rootOverride, session.cwd, henv.cwd)?.root : undefined);
  const sessionId = ctx?.sessionId ?? session?.sessionId;
  if (!root || !sessionId) return undefined;
  const before = takeRuleStateBack(root, report.callId ?? sessionId);
  if (!before) return undefined;
  const rewrite = ledgerRewrite(root, ctx?.rules.settings.ledgerPath ?? defaultSettings.ledgerPath, before.ledger);
  const changes = [...ruleChanges(before, readRuleState(root, sessionId, ctx?.rules)), ...(rewrite ? [rewrite] : [])];
  const said = ruleChangeReport(changes);
  if (!said || before.approved) return said;
  // a change the user was not asked about (the command did not say it would make it): the session's writes
  // wait for the user, whatever the command was
  holdSession(root, sessionId, changes.join("; "), henv.now);
  return `${said} Until the user has looked and selects for this session again (\`intent select ID --session ${sessionId}\`), intent-lsp denies its writes.`;
}

function beforeWrite(ctx: GateContext, filePath: string, expectedHash: string | undefined, callId: string | undefined): GateDecision {
  const { decision, path, verdict } = gateWrite(ctx, filePath, expectedHash);
  // the post hook needs the content as it was
  if (path !== undefined && (decision.kind === "allow" || decision.kind === "ask")) stashBefore(ctx.root, callId ?? ctx.sessionId, path);
  else if (path !== undefined && verdict !== undefined && isProblem(verdict)) {
    // A call denied for its scope may still run (an agent that does not honour a deny, a person who lets it
    // through): stashed too, its write is recorded with the gate's verdict, and `intent check` fails on it
    // as the gate did. The deny stands whatever the stash does.
    try {
      stashBefore(ctx.root, callId ?? ctx.sessionId, path);
    } catch {
      /* unstashed, a write that runs anyway is untraced, which `intent check` reports too */
    }
  }
  // editors working under the same intent see this agent as working on it too (claimed-elsewhere); the
  // session file this call wrote already saying so needs no second write
  if (decision.kind === "allow" && verdict?.kind === "allowed" && !worksOnOnly(ctx.session, verdict.intent.id))
    touchAgentSession(ctx.root, ctx.sessionId, { workingOn: verdict.intent.id });
  if (decision.kind === "deny" && path !== undefined && verdict && verdict.kind !== "allowed" && verdict.kind !== "exempt") {
    try {
      noteLesson(ctx.root, {
        path,
        intentId: "intent" in verdict ? verdict.intent.id : null,
        text: `an agent's write was denied (${decision.code}). ${decision.reason}`,
      });
    } catch {
      /* the lesson is a courtesy; the decision stands without it */
    }
  }
  return decision;
}

/** Whether the session's record names `intentId`, and only it, as what it works on. */
function worksOnOnly(session: SessionRecord | undefined, intentId: string): boolean {
  return session?.workingOn?.length === 1 && session.workingOn[0] === intentId;
}

export async function afterWrite(ctx: GateContext | undefined, henv: HookEnvironment, w: WriteReport): Promise<PostOutcome | undefined> {
  return ctx ? recordAgentWrite(ctx, w, henv.toolVersion, henv.now) : undefined;
}

/** After a call that named several files (a move, a patch): each recorded, a move's destination as moved. */
export async function afterWrites(ctx: GateContext | undefined, henv: HookEnvironment, reports: readonly WriteReport[]): Promise<PostOutcome[]> {
  return ctx ? recordAgentWrites(ctx, reports, henv.toolVersion, henv.now) : [];
}

export function sessionEnded(henv: HookEnvironment, s: HookSession): void {
  const ws = resolveWorkspaceRoot(henv.rootOverride, s.cwd, henv.cwd);
  if (!ws) return;
  endAgentSession(ws.root, s.sessionId);
  cleanStaleStashes(ws.root);
  removeSessionCuts(ws.root, s.sessionId);
}

/** A short orientation for the agent at session start: what is selected and what that means for writes. */
export function sessionBriefing(ctx: GateContext): string {
  const { rules, selection } = ctx;
  const lines = ["intent-lsp checks every Write/Edit in this workspace against the active intent's scope and records it in the Agent Trace ledger."];
  if (ctx.brokenRules) {
    lines.push(`${ctx.brokenRules.file} has errors, so every write is denied until the user fixes it (\`intent status\` lists them).`);
    return lines.join(" ");
  }
  const selected = selection ? rules.catalogue.byId.get(selection.intentId) : undefined;
  if (selected) {
    lines.push(
      `Active intent: ${selected.id} (${selected.name}), ${selected.status}, scope ${selected.ownedScope.join(", ")} (selected ${selection!.source === "session" ? "for this session" : "for the workspace"}).`,
    );
    lines.push(`Run \`intent context ${selected.id}\` for its constraints, specs and recent work.`);
  } else {
    const inProgress = rules.catalogue.intents.filter((i) => i.status === "IN_PROGRESS");
    lines.push(
      rules.settings.autoSelect
        ? "No intent is selected: a write is allowed where exactly one in-progress intent owns the file."
        : "No intent is selected and auto-selection is off: writes are denied until an intent is selected.",
    );
    if (inProgress.length) lines.push(`In progress: ${inProgress.map((i) => `${i.id} (${i.ownedScope.join(", ")})`).join("; ")}.`);
    lines.push(`Select one for this session with \`intent select ID --session ${ctx.sessionId}\`.`);
  }
  return lines.join(" ");
}
