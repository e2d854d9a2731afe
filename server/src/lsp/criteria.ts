/**
 * Acceptance criteria in the editor (docs/INTENTS.md "Acceptance criteria"): the "Verify" CodeLens and the
 * lifecycle action "Complete" run an intent's commands, only because the person clicked, with
 * `$/progress` and cancellation; the sentences are put to the person. The last result of each intent is
 * kept for the CodeLens title and a diagnostic on a failing criterion's line.
 */
import { LSPErrorCodes, ResponseError, ErrorCodes, type CancellationToken, type Connection } from "vscode-languageserver";
import type { CriterionCheckMetadata, VerificationMetadata } from "@shared/agentTrace";
import { criterionText } from "../engine/intents/load";
import type { Intent } from "../engine/intents/model";
import {
  failureClause,
  invalidCriteriaReason,
  passed,
  runCheck,
  runnable,
  sentences,
  verified,
  type RunCriterion,
  type RunOutcome,
} from "../engine/intents/verification";
import { runCriterion } from "../io/criteria/runCriterion";
import type { WorkspaceContext } from "./workspaceContext";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Command } from "vscode-languageserver";
import { Commands } from "@shared/commands";
import { relativeTime } from "../engine/describe";
import { INTENTS_FILE } from "../engine/workspaceFiles";

/** The last verification of an intent in this editor session. */
export interface LastVerification {
  at: Date;
  total: number;
  failed: { criterion: RunCriterion; why: string; tail: string }[];
  cancelled: boolean;
}

export class CriteriaRunner {
  private readonly last = new Map<string, LastVerification>();
  private readonly running = new Set<string>();

  constructor(
    private readonly connection: Connection,
    private readonly onChange: (ctx: WorkspaceContext) => void,
  ) {}

  /** The last result for an intent of a workspace, if it was verified in this session. */
  lastOf(ctx: WorkspaceContext, id: string): LastVerification | undefined {
    return this.last.get(key(ctx, id));
  }

  isRunning(ctx: WorkspaceContext, id: string): boolean {
    return this.running.has(key(ctx, id));
  }

  /**
   * Runs the intent's commands (never its sentences) with progress; the result is kept and returned.
   * Refuses while the same intent is being verified.
   */
  async runCommands(ctx: WorkspaceContext, intent: Intent, token?: CancellationToken): Promise<{ checks: CriterionCheckMetadata[]; result: LastVerification }> {
    if (!intent.criteriaValid) throw new ResponseError(ErrorCodes.InvalidRequest, invalidCriteriaReason(intent.id));
    const k = key(ctx, intent.id);
    if (this.running.has(k))
      throw new ResponseError(ErrorCodes.InvalidRequest, `${intent.id}'s criteria are being verified already; wait for that run to end.`);
    this.running.add(k);
    this.onChange(ctx);
    const commands = runnable(intent);
    const progress = await this.connection.window.createWorkDoneProgress().catch(() => undefined);
    const abort = new AbortController();
    const cancel = () => abort.abort();
    token?.onCancellationRequested(cancel);
    progress?.token.onCancellationRequested(cancel);
    progress?.begin(`Verifying ${intent.id}`, 0, `${commands.length} criteria`, true);
    const checks: CriterionCheckMetadata[] = [];
    const failed: LastVerification["failed"] = [];
    try {
      for (const [i, c] of commands.entries()) {
        if (abort.signal.aborted) break;
        progress?.report(Math.round((i / commands.length) * 100), `${i + 1}/${commands.length}: ${criterionText(c)}`);
        const outcome: RunOutcome = await runCriterion(ctx.root, c, { signal: abort.signal });
        checks.push(runCheck(c, outcome));
        if (!passed(outcome)) failed.push({ criterion: c, why: failureClause(c, outcome), tail: outcome.tail });
      }
    } finally {
      progress?.done();
      this.running.delete(k);
    }
    const result: LastVerification = { at: new Date(), total: commands.length, failed, cancelled: abort.signal.aborted };
    this.last.set(k, result);
    this.onChange(ctx);
    return { checks, result };
  }

  /** The verification before "Complete": every command passes and every sentence is confirmed, or it throws. */
  async verifyForCompletion(ctx: WorkspaceContext, intent: Intent, token?: CancellationToken): Promise<VerificationMetadata> {
    const { checks, result } = await this.runCommands(ctx, intent, token);
    if (result.cancelled) throw new ResponseError(LSPErrorCodes.RequestCancelled, `Verification of ${intent.id} was cancelled; nothing was changed.`);
    const first = result.failed[0];
    if (first) {
      throw new ResponseError(
        ErrorCodes.InvalidRequest,
        `${intent.id} stays ${intent.status}: criterion "${criterionText(first.criterion)}" failed (${first.why}); nothing was changed.${first.tail ? `\n${first.tail}` : ""}`,
      );
    }
    for (const c of sentences(intent)) {
      const answer = await this.connection.window.showInformationMessage(
        `Complete ${intent.id}: confirm "${c.text}"?`,
        { title: "Confirm" },
        { title: "Not yet" },
      );
      if (answer?.title !== "Confirm")
        throw new ResponseError(ErrorCodes.InvalidRequest, `${intent.id} stays ${intent.status}: "${c.text}" was not confirmed; nothing was changed.`);
      checks.push({ kind: "confirm", text: c.text, confirmed: true, how: "editor" });
    }
    return verified(checks, ctx.person());
  }

  /** The CodeLens on an intent with runnable criteria: what clicking it does, and how the last run went. */
  lens(ctx: WorkspaceContext, intent: Intent, now: number): Command | undefined {
    const n = runnable(intent).length;
    if (!n || !intent.criteriaValid) return undefined;
    const args = [{ id: intent.id, uri: pathToFileURL(join(ctx.root, INTENTS_FILE)).href }];
    if (this.isRunning(ctx, intent.id))
      return { title: `Verifying ${n} ${n === 1 ? "criterion" : "criteria"}…`, command: Commands.verifyCriteria, arguments: args };
    const last = this.lastOf(ctx, intent.id);
    const title = !last
      ? `Verify ${n} ${n === 1 ? "criterion" : "criteria"}`
      : last.cancelled
        ? `Verification cancelled · verify ${n} ${n === 1 ? "criterion" : "criteria"}`
        : last.failed.length
          ? `✗ ${last.failed.length} of ${last.total} failed`
          : `✓ ${last.total}/${last.total} verified ${relativeTime(last.at.toISOString(), now)}`;
    return { title, command: Commands.verifyCriteria, arguments: args };
  }

  /** Tells the person a half-done result (a move whose record the ledger refused). */
  warn(message: string): void {
    this.connection.window.showWarningMessage(message);
  }
}

const key = (ctx: WorkspaceContext, id: string) => `${ctx.root}\0${id}`;
