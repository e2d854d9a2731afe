/**
 * The rules' state kept from before a shell command until its post hook (engine/agent/ruleState.ts), in
 * `.orchestration/.sessions/pending/` beside the shell snapshot. Independent of git: the rule files and the
 * selection may be ignored by git or the workspace may not be a repository.
 */
import { createHash } from "node:crypto";
import { closeSync, fstatSync, readSync } from "node:fs";
import { join } from "node:path";
import { fileHash } from "../../engine/hashing";
import { RULE_FILES, SESSIONS_DIR } from "../../engine/workspaceFiles";
import type { RuleState } from "../../engine/agent/ruleState";
import type { Rules } from "../../engine/rules";
import { readOptional } from "../optionalFile";
import { ensureOwnDir, ownFilePath, removeOwnFile, writeOwnFile } from "../ownFiles";
import { openRegularSync } from "../regularFiles";
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

/** What is kept before a shell command: the rules' state, the ledger's mark, and whether the user approved a change of the rules. */
export interface KeptRuleState extends RuleState {
  /** The gate asked the user about this command as one that changes the rules (`rule-command`), and it ran. */
  approved?: boolean;
  ledger?: LedgerMark;
}

/** Enough of the ledger to tell, after a command, that it was not only appended to. */
export interface LedgerMark {
  size: number;
  /** Hashes of the first and of the last (up to) 4 KiB of the ledger then. */
  head: string;
  tail: string;
}

const MARK_BYTES = 4096;

export function ledgerMark(root: string, ledgerPath: string): LedgerMark | undefined {
  let fd: number | undefined;
  try {
    fd = openRegularSync(ownFilePath(root, ledgerPath));
    const size = fstatSync(fd).size;
    return { size, head: bytesAt(fd, 0, Math.min(size, MARK_BYTES)), tail: bytesAt(fd, Math.max(0, size - MARK_BYTES), size) };
  } catch {
    return undefined; // no ledger yet (or none that can be read safely: the gate says so elsewhere)
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * How the ledger changed since `before` other than by appends, as a clause; undefined when it only grew (or
 * was not there to begin with). Lines are appended, never rewritten: a shorter ledger, or other bytes where
 * its first or last lines were, is a rewrite.
 */
export function ledgerRewrite(root: string, ledgerPath: string, before: LedgerMark | undefined): string | undefined {
  if (!before || before.size === 0) return undefined;
  let fd: number | undefined;
  try {
    fd = openRegularSync(ownFilePath(root, ledgerPath));
    const size = fstatSync(fd).size;
    if (size < before.size) return `${ledgerPath} was cut from ${before.size} bytes to ${size}`;
    const same =
      bytesAt(fd, 0, Math.min(before.size, MARK_BYTES)) === before.head && bytesAt(fd, Math.max(0, before.size - MARK_BYTES), before.size) === before.tail;
    return same ? undefined : `${ledgerPath} was rewritten (its recorded lines are not the ones it held)`;
  } catch {
    return `${ledgerPath} was removed or replaced`;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function bytesAt(fd: number, from: number, to: number): string {
  const buf = Buffer.alloc(to - from);
  const got = readSync(fd, buf, 0, buf.length, from);
  return createHash("sha256").update(buf.subarray(0, got)).digest("hex");
}

export function keepRuleState(root: string, callKey: string, state: KeptRuleState): void {
  ensureOwnDir(root, PENDING_DIR);
  writeOwnFile(root, stateFile(callKey), JSON.stringify(state), { durable: false });
}

/** The state kept before the command (removed as it is read), or undefined. */
export function takeRuleStateBack(root: string, callKey: string): KeptRuleState | undefined {
  let text: string | undefined;
  try {
    text = readOptional(join(root, stateFile(callKey)));
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  removeOwnFile(root, stateFile(callKey));
  try {
    const parsed = JSON.parse(text) as KeptRuleState;
    return parsed && typeof parsed.files === "object" && parsed.files !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}
