import { join } from "node:path";
import { judge } from "../gate";
import { fileHash } from "../hashing";
import { noteLesson } from "../lessons";
import { readOptional, INTENTS_FILE } from "../workspaceFiles";
import { resolveWorkspaceRoot } from "../workspaceRoot";
import { endAgentSession, touchAgentSession } from "./agentSession";
import { gateShell, gateWrite, loadGateContext, workspacePath, type GateContext, type GateDecision } from "./gateWrite";
import { cleanStaleStashes, ledgerHasContent, recordAgentWrite, stashBefore, takeStash } from "./recordWrite";

/**
 * What every agent's hooks do, whatever their protocol: gate a write, gate a shell command, record a write,
 * keep the session file. The adapters parse their agent's payload into these calls and print the answer.
 */

export interface HookEnvironment {
  /** `--root DIR` from the command line, which wins over the payload's folders. */
  rootOverride?: string;
  env: NodeJS.ProcessEnv;
  toolVersion: string;
  now?: Date;
}

export interface HookSession {
  /** Where the payload says the agent works (cwd or the first workspace root). */
  cwd: string;
  sessionId: string;
  client: string;
}

/** The workspace and its rules, or undefined when there is nothing to enforce (no intents file anywhere). */
export function openWorkspace(henv: HookEnvironment, s: HookSession): GateContext | undefined {
  const ws = resolveWorkspaceRoot(henv.rootOverride, s.cwd);
  if (!ws || readOptional(join(ws.root, INTENTS_FILE)) === undefined) return undefined;
  // every call is a sign of life: the heartbeat keeps the session listed while the agent works
  touchAgentSession(ws.root, s.sessionId, s.client, henv.now);
  return loadGateContext(ws.root, s.sessionId);
}

/** `callId`: the agent's id for this tool call, when it has one; it pairs the stash with the post hook. */
export function preWrite(ctx: GateContext | undefined, filePath: string, expectedHash: string | undefined, callId?: string): GateDecision {
  if (!ctx) return { kind: "none", code: "no-intents-file" };
  const result = gateWrite(ctx, filePath, expectedHash);
  const { decision, path, verdict } = result;
  // the post hook needs the content as it was; only calls that may still run are worth stashing
  if (path !== undefined && (decision.kind === "allow" || decision.kind === "ask")) stashBefore(ctx.root, callId ?? ctx.sessionId, path);
  if (decision.kind === "deny" && path !== undefined && verdict && verdict.kind !== "allowed" && verdict.kind !== "exempt") {
    try {
      noteLesson(ctx.root, { path, intentId: "intent" in verdict ? verdict.intent.id : null, text: `an agent's write was denied (${decision.code}). ${decision.reason}` });
    } catch {
      /* the lesson is a courtesy; the decision stands without it */
    }
  }
  return decision;
}

export function preShell(ctx: GateContext | undefined, command: string): GateDecision {
  if (!ctx) return { kind: "none", code: "no-intents-file" };
  return gateShell(command);
}

export interface WriteReport {
  filePath: string;
  /** The same call id the pre hook was given, if any. */
  callId?: string;
  /** Content before the write when the agent's payload proves it, given the content after (the stash wins). */
  before?: (after: string) => string | null | undefined;
  modelId?: string;
}

export type PostOutcome =
  | { kind: "recorded"; id: string; path: string }
  | { kind: "skipped"; why: "no-intents-file" | "outside-workspace" | "exempt" | "deleted" | "duplicate" | "unchanged" }
  /** The write happened but which lines it made cannot be told; nothing recorded rather than a guess. */
  | { kind: "unknown-before"; path: string };

export async function postWrite(ctx: GateContext | undefined, henv: HookEnvironment, w: WriteReport): Promise<PostOutcome> {
  if (!ctx) return { kind: "skipped", why: "no-intents-file" };
  const path = workspacePath(ctx.root, w.filePath);
  if (path === undefined) return { kind: "skipped", why: "outside-workspace" };
  const stash = takeStash(ctx.root, w.callId ?? ctx.sessionId, path);
  const verdict = judge(path, ctx.rules, ctx.selection);
  if (verdict.kind === "exempt") return { kind: "skipped", why: "exempt" }; // as the editor: exempt files are not recorded
  const after = readOptional(join(ctx.root, path));
  if (after === undefined) return { kind: "skipped", why: "deleted" };
  const ledgerPath = ctx.rules.settings.ledgerPath;
  if (ledgerHasContent(ctx.root, ledgerPath, path, fileHash(after))) return { kind: "skipped", why: "duplicate" };
  const before = stash ? stash.content : w.before?.(after);
  if (before === undefined) return { kind: "unknown-before", path };
  const outcome = await recordAgentWrite({
    root: ctx.root,
    ledgerPath,
    path,
    before,
    after,
    verdict,
    modelId: w.modelId ?? ctx.rules.settings.contributor.modelId,
    sessionId: ctx.sessionId,
    toolVersion: henv.toolVersion,
    now: henv.now,
  });
  return outcome.written ? { kind: "recorded", id: outcome.id, path } : { kind: "skipped", why: outcome.reason };
}

export function sessionEnded(henv: HookEnvironment, s: HookSession): void {
  const ws = resolveWorkspaceRoot(henv.rootOverride, s.cwd);
  if (!ws) return;
  endAgentSession(ws.root, s.sessionId);
  cleanStaleStashes(ws.root);
}

/** A short orientation for the agent at session start: what is selected and what that means for writes. */
export function sessionBriefing(ctx: GateContext): string {
  const { rules, selection } = ctx;
  const lines = ["intent-lsp checks every Write/Edit in this workspace against the active intent's scope and records it in the Agent Trace ledger."];
  if (rules.intents.hasErrors) {
    lines.push(`${INTENTS_FILE} has errors, so every write is denied until the user fixes it (\`intent status\` lists them).`);
    return lines.join(" ");
  }
  const selected = selection ? rules.catalogue.byId.get(selection.intentId) : undefined;
  if (selected) {
    lines.push(`Active intent: ${selected.id} (${selected.name}), ${selected.status}, scope ${selected.ownedScope.join(", ")} (selected ${selection!.source === "session" ? "for this session" : "for the workspace"}).`);
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
