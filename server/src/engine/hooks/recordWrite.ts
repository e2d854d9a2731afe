import { createHash } from "node:crypto";
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { diffArrays } from "diff";
import { writeFileAtomic } from "../atomicWrite";
import { normalizeLines } from "../hashing";
import type { RecordOutcome } from "../ledger/recordChange";
import { LedgerIndex } from "../ledger/index";
import { REFERENCE_LEDGER } from "../ledger/workspaceLedger";
import type { Verdict } from "../gate";
import { readOptional, SESSIONS_DIR } from "../workspaceFiles";

/**
 * After an agent's write (PostToolUse, afterFileEdit): one Agent Trace record for exactly the lines the
 * write produced, with the agent as contributor. The lines come from diffing the content before the write
 * with the content after it; "before" is stashed by the pre-write hook, because afterwards it is gone.
 */

const PENDING_DIR = `${SESSIONS_DIR}/pending`;
/** Stashes older than this belong to calls that never completed (denied by the agent, crashed). */
const STASH_TTL_MS = 6 * 60 * 60 * 1000;

/**
 * `callKey` pairs a pre hook with its post hook: the tool call's id when the agent gives one (two calls on
 * one file can then run at once), else the session id (one call per file at a time).
 */
function stashFile(root: string, callKey: string, path: string): string {
  const key = createHash("sha256").update(`${callKey}\u0000${path}`).digest("hex").slice(0, 32);
  return join(root, PENDING_DIR, `${key}.json`);
}

/** Keeps the file's current content (null: it does not exist) until the write's post hook picks it up. */
export function stashBefore(root: string, callKey: string, path: string): void {
  const content = readOptional(join(root, path)) ?? null;
  mkdirSync(join(root, PENDING_DIR), { recursive: true });
  writeFileAtomic(stashFile(root, callKey, path), JSON.stringify({ path, content }));
}

/** The stashed content before the write (null: the file did not exist), or undefined when none was stashed. */
export function takeStash(root: string, callKey: string, path: string): { content: string | null } | undefined {
  const file = stashFile(root, callKey, path);
  const text = readOptional(file);
  if (text === undefined) return undefined;
  try {
    unlinkSync(file);
  } catch {
    /* another hook took it meanwhile; the content read is still right */
  }
  try {
    const parsed = JSON.parse(text) as { path?: unknown; content?: unknown };
    if (parsed.path !== path || (typeof parsed.content !== "string" && parsed.content !== null)) return undefined;
    return { content: parsed.content as string | null };
  } catch {
    return undefined;
  }
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
      if (now - statSync(join(dir, n)).mtimeMs > STASH_TTL_MS) unlinkSync(join(dir, n));
    } catch {
      /* gone already */
    }
  }
}

export interface StringEdit {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

/**
 * The content before a set of string replacements, recovered from the content after them by undoing them
 * in reverse order. Only when every undo is unambiguous (its new_string occurs exactly once, or replace_all);
 * otherwise undefined, because a wrong guess would attribute someone else's lines to the agent.
 */
export function undoEdits(after: string, edits: readonly StringEdit[]): string | undefined {
  let text = after;
  for (let i = edits.length - 1; i >= 0; i--) {
    const e = edits[i]!;
    if (typeof e.old_string !== "string" || typeof e.new_string !== "string" || e.new_string === "") return undefined;
    const first = text.indexOf(e.new_string);
    if (first === -1) return undefined;
    if (e.replace_all) text = text.split(e.new_string).join(e.old_string);
    else {
      if (text.indexOf(e.new_string, first + 1) !== -1) return undefined;
      text = text.slice(0, first) + e.old_string + text.slice(first + e.new_string.length);
    }
  }
  return text;
}

/**
 * 1-based numbers of the lines of `after` that are new or changed relative to `before`, compared as the
 * hashes see lines (CRLF and trailing blanks do not count). A final newline does not make an extra line.
 */
export function changedLineNumbers(before: string | null, after: string): number[] {
  const b = before === null ? [] : contentLines(before);
  const a = contentLines(after);
  const out: number[] = [];
  let line = 1;
  for (const part of diffArrays(b, a)) {
    const count = part.count ?? part.value.length;
    if (part.removed) continue;
    if (part.added) for (let k = 0; k < count; k++) out.push(line + k);
    line += count;
  }
  return out;
}

function contentLines(text: string): string[] {
  const lines = normalizeLines(text);
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

// --- the model -----------------------------------------------------------------------------------------

const PROVIDERS: readonly [RegExp, string][] = [
  [/^claude/i, "anthropic"],
  [/^(gpt|o\d|chatgpt|codex)/i, "openai"],
  [/^gemini/i, "google"],
  [/^grok/i, "xai"],
  [/^(composer|cursor)/i, "cursor"],
];

/** models.dev style `provider/model`: an id without a provider gets the one its name implies. */
export function normalizeModelId(raw: string | undefined, fallbackProvider?: string): string | undefined {
  const id = raw?.trim();
  if (!id || id === "<synthetic>" || id === "default" || id === "auto") return undefined;
  if (id.includes("/")) return id.slice(0, 250);
  const provider = PROVIDERS.find(([re]) => re.test(id))?.[1] ?? fallbackProvider;
  return (provider ? `${provider}/${id}` : id).slice(0, 250);
}

/** The transcript's tail holds the latest turns; reading only it keeps the hook fast on long sessions. */
const TRANSCRIPT_TAIL_BYTES = 512 * 1024;

/** The model of the last assistant message in a Claude Code transcript (JSONL), if any. */
export function modelFromTranscript(path: string | undefined): string | undefined {
  if (!path) return undefined;
  let text: string;
  try {
    const fd = openSync(path, "r");
    try {
      const size = fstatSync(fd).size;
      const length = Math.min(size, TRANSCRIPT_TAIL_BYTES);
      const buf = Buffer.alloc(length);
      readSync(fd, buf, 0, length, size - length);
      text = buf.toString("utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (!line.includes('"assistant"')) continue;
    try {
      const obj = JSON.parse(line) as { type?: unknown; message?: { model?: unknown; role?: unknown } };
      const model = obj.message?.model;
      if ((obj.type === "assistant" || obj.message?.role === "assistant") && typeof model === "string" && model !== "<synthetic>") return model;
    } catch {
      /* the first line of the tail may be cut; older lines are not needed */
    }
  }
  return undefined;
}

// --- recording -----------------------------------------------------------------------------------------

export interface AgentWrite {
  root: string;
  ledgerPath: string;
  path: string;
  /** Content before the write: a string, null when the file did not exist. */
  before: string | null;
  /** Content after the write, as now on disk. */
  after: string;
  verdict: Verdict;
  modelId?: string;
  sessionId: string;
  toolVersion: string;
  now?: Date;
}

export async function recordAgentWrite(w: AgentWrite): Promise<RecordOutcome> {
  // Loaded here, not at the top: it brings the schema validator, which the pre-write gate (run on every tool
  // call) never needs; a plain require lets the bundler defer it.
  const { recordChange } = require("../ledger/recordChange") as typeof import("../ledger/recordChange");
  return recordChange({
    root: w.root,
    ledgerPath: w.ledgerPath,
    path: w.path,
    content: w.after,
    before: w.before,
    changedLines: changedLineNumbers(w.before, w.after),
    verdict: w.verdict,
    contributor: w.modelId ? { type: "ai", modelId: w.modelId } : { type: "ai" },
    sessionId: w.sessionId,
    toolVersion: w.toolVersion,
    alreadyRecorded: (path, hash) => ledgerHasContent(w.root, w.ledgerPath, path, hash),
    now: w.now,
  });
}

/**
 * Whether any ledger pins `path` to content `hash` (the write was recorded already, e.g. the same post hook
 * ran twice). The hash is searched as text first: on the usual "no" a large ledger is not parsed at all.
 */
export function ledgerHasContent(root: string, ledgerPath: string, path: string, hash: string): boolean {
  for (const file of [ledgerPath, REFERENCE_LEDGER]) {
    const text = readOptional(join(root, file));
    if (text === undefined || !text.includes(hash)) continue;
    const index = new LedgerIndex();
    index.ingest(text, 1);
    if (index.hasPostHash(path, hash)) return true;
  }
  return false;
}
