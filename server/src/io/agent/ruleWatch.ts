/**
 * The rules' state kept from before a shell command until its post hook (engine/agent/ruleState.ts), in
 * `.orchestration/.sessions/pending/` beside the shell snapshot. Independent of git: the rule files and the
 * selection may be ignored by git or the workspace may not be a repository.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { fileHash } from "../../engine/hashing";
import { RULE_FILES, SESSIONS_DIR } from "../../engine/workspaceFiles";
import type { RuleState } from "../../engine/agent/ruleState";
import type { Rules } from "../../engine/rules";
import { readOptional } from "../optionalFile";
import { ensureOwnDir, removeOwnFile, writeOwnFile } from "../ownFiles";
import { readSession, readWorkspaceSelection } from "../sessionFiles";

const PENDING_DIR = `${SESSIONS_DIR}/pending`;
const stateFile = (callKey: string) => `${PENDING_DIR}/rules-${createHash("sha256").update(callKey).digest("hex").slice(0, 32)}.json`;

/** The rules' state now; `rules` (when the intents file is there) gives the intents' statuses. */
export function readRuleState(root: string, sessionId: string, rules: Pick<Rules, "catalogue"> | undefined): RuleState {
  const files: Record<string, string | null> = {};
  for (const file of RULE_FILES) {
    let text: string | undefined;
    try {
      text = readOptional(join(root, file));
    } catch {
      text = "\u0000not a regular file"; // fingerprinted as something other than any text
    }
    files[file] = text === undefined ? null : fileHash(text);
  }
  const statuses: Record<string, string> = {};
  for (const intent of rules?.catalogue.intents ?? []) statuses[intent.id] = intent.status;
  const session = readSession(root, sessionId);
  return {
    files,
    statuses,
    workspaceSelection: readWorkspaceSelection(root)?.intent ?? null,
    ...(session && session.intent !== undefined ? { sessionSelection: session.intent } : {}),
  };
}

export function keepRuleState(root: string, callKey: string, state: RuleState): void {
  ensureOwnDir(root, PENDING_DIR);
  writeOwnFile(root, stateFile(callKey), JSON.stringify(state), { durable: false });
}

/** The state kept before the command (removed as it is read), or undefined. */
export function takeRuleStateBack(root: string, callKey: string): RuleState | undefined {
  let text: string | undefined;
  try {
    text = readOptional(join(root, stateFile(callKey)));
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  removeOwnFile(root, stateFile(callKey));
  try {
    const parsed = JSON.parse(text) as RuleState;
    return parsed && typeof parsed.files === "object" && parsed.files !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}
