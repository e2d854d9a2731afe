/**
 * The agent gate, independent of any agent's protocol (docs/CLI.md and docs/AGENTS.md): may this agent session write this file
 * now? The verdict is `judge`'s and the sentence is `verdictMessage`'s, as in the editor; this module only
 * adds what an agent needs on top: the path checks, fail-closed rules and the next step to take.
 * The doors (cli/hook/claudeCode.ts, cli/hook/cursor.ts) turn a decision into their agent's JSON.
 */
import { type Stats, statSync } from "node:fs";
import { resolve } from "node:path";
import { fileHash } from "../../engine/hashing";
import { judge, verdictMessage, type ProblemVerdict, type Selection, type Verdict } from "../../engine/gate";
import type { Intent } from "../../engine/intents/model";
import { toWorkspacePath } from "../../engine/paths";
import { resolveWorkspaceWrite } from "../realPath";
import { isIntentLspFile } from "../../engine/recordPolicy";
import type { Rules } from "../../engine/rules";
import type { RuleFileProblem } from "../../engine/ruleFileProblems";
import { gateRules } from "./gateRules";
import { resolveSelection, type SessionRecord } from "../../engine/sessions";
import { readSelectionFiles } from "../sessionFiles";
import { INTENTS_FILE } from "../../engine/workspaceFiles";
import { readRuleFiles } from "../ruleFiles";
import { readOptional } from "../optionalFile";
import { fileKind } from "../regularFiles";
import { deny, type GateDecision } from "../../engine/agent/decision";

/** Everything the gate reads, loaded once per hook invocation. */
export interface GateContext {
  root: string;
  sessionId: string;
  rules: Rules;
  /** Errors in the rule files (intents first): while there is one, every write is denied. */
  brokenRules: RuleFileProblem | undefined;
  selection: Selection | undefined;
  /** The session's file as this call wrote it, when it did (its heartbeat): read again, it says the same. */
  session?: SessionRecord;
  /** The hook's clock (ms since the epoch), when the caller sets one; else the system's. */
  now?: number;
  /** What a shell command of this session changed of the rules without the user's approval (SessionRecord.held). */
  held?: string;
}

export function loadGateContext(root: string, sessionId: string, session?: SessionRecord): GateContext {
  const { rules, brokenRules } = gateRules(root, readRuleFiles(root));
  const files = readSelectionFiles(root, sessionId);
  const own = session ?? files.session;
  const selection = resolveSelection(own, files.workspace, files.damage);
  return { root, sessionId, rules, brokenRules, selection, ...(session ? { session } : {}), ...(own?.held !== undefined ? { held: own.held } : {}) };
}

interface WriteGateResult {
  decision: GateDecision;
  /** Workspace-relative path, when the file is inside the workspace. */
  path?: string;
  verdict?: Verdict;
}

export function gateWrite(ctx: GateContext, filePath: string, expectedHash?: string): WriteGateResult {
  // a line break or NUL in a path is an accident or an attack: no reader of the ledger would accept the record
  if (CONTROL_CHARS.test(filePath)) {
    return {
      decision: deny(
        "bad-path",
        `${JSON.stringify(filePath)} holds a control character (a line break, tab or NUL); intent-lsp lets agents write only files with plain names, which it can record. Use a plain file name, or ask the user.`,
      ),
    };
  }
  // `~` is the home folder to a shell and to some agents, a folder named `~` to the file system: the door
  // expands it for an agent known to mean the home folder; any other is not guessed at
  if (!filePath.startsWith("/") && /^~[^/]*(\/|$)/.test(filePath)) {
    return {
      decision: deny(
        "bad-path",
        `${filePath} starts with ~, which this agent may mean as the home folder (outside the workspace) or as a folder named ~; intent-lsp does not guess. Give the path absolute or relative to the workspace, without ~.`,
      ),
    };
  }
  // judged where the write really lands: links followed, then `..` (a link inside src/api/ may lead to docs/ or out)
  const where = resolveWorkspaceWrite(ctx.root, filePath);
  if (where.kind === "unresolvable") {
    return {
      decision: deny(
        "bad-path",
        `${filePath} cannot be judged: ${where.reason}. intent-lsp lets agents write only where it can tell the file the write reaches. Use a plain path inside the workspace, or ask the user.`,
      ),
    };
  }
  if (where.kind === "outside") {
    // inside as text, outside in fact: a link took it out (the text's own `..` would have kept it in)
    const shown = filePath.startsWith(`${ctx.root}/`) ? filePath.slice(ctx.root.length + 1) : filePath;
    const reason =
      resolve(ctx.root, filePath) === resolve(ctx.root)
        ? `${filePath} is the workspace folder itself, where a tool given it may write anything; intent-lsp lets agents write only files it can judge. Name the files it writes, or ask the user to make this change.`
        : toWorkspacePath(ctx.root, filePath) === undefined
          ? `${filePath} is outside the workspace ${ctx.root}; intent-lsp lets agents write only inside it. Write the file inside the workspace, or ask the user to make this change.`
          : `${shown} leads outside the workspace through a symbolic link; intent-lsp lets agents write only inside it. Ask the user to make this change.`;
    return { decision: deny("outside-workspace", reason) };
  }
  const path = where.path;
  const landing = statOrUndefined(resolve(ctx.root, path));
  // a file with other names (hard links) changes under all of them, and nothing tells where they are
  if (landing?.isFile() && landing.nlink > 1) {
    return {
      decision: deny(
        "bad-path",
        `${path} cannot be judged: it is one file with ${landing.nlink} names (hard links), and a write to it changes it under every name, which intent-lsp cannot find. Ask the user to make this change.`,
      ),
      path,
    };
  }
  // a FIFO or a device cannot be read to record the write (reading a FIFO blocks until someone writes to it)
  const kind = landing && !landing.isFile() ? fileKind(landing) : undefined;
  if (kind) {
    return {
      decision: deny(
        "not-a-regular-file",
        `${path} is ${kind}, not a regular file; intent-lsp lets agents write only regular files. Ask the user to make this change.`,
      ),
      path,
    };
  }
  if (!ctx.rules.intentsFileExists) return { decision: { kind: "none", code: "no-intents-file" }, path };
  // the rules and the record: an agent may propose a change (also the fix of a broken file), a person decides
  if (isIntentLspFile(path, ctx.rules)) {
    return {
      decision: {
        kind: "ask",
        code: "rule-file",
        reason: `${path} is one of intent-lsp's own files (its rules, records, caches or state); an agent's change to it needs the user's approval.`,
      },
      path,
    };
  }
  const broken = ctx.brokenRules;
  if (broken) {
    const code = broken.file === INTENTS_FILE ? "intents-file-broken" : "config-file-broken";
    return {
      decision: deny(
        code,
        `${broken.file}:${broken.line}:${broken.column}: ${sentence(broken.message)} While ${broken.file} has errors every write is denied (fail closed). Ask the user to fix it; \`intent status\` lists every problem.`,
      ),
      path,
    };
  }

  const verdict = judge(path, ctx.rules, ctx.selection);
  if (verdict.kind !== "exempt" && verdict.kind !== "allowed") {
    return { decision: deny(verdict.kind, `${verdictMessage(path, verdict)} ${nextStep(path, verdict, ctx.sessionId)}`), path, verdict };
  }
  const stale = staleness(ctx.root, path, expectedHash);
  if (stale) return { decision: deny("stale-file", stale), path, verdict };
  const reason =
    verdict.kind === "exempt"
      ? `${path} is exempt from scope checks (.intentignore or the "exempt" setting).`
      : `${verdict.intent.id} (${verdict.intent.name}) owns ${path}${verdict.auto ? " (auto-selected: the only in-progress intent that owns it)" : ""}.`;
  return { decision: { kind: "allow", code: verdict.kind === "exempt" ? "exempt" : "in-scope", reason }, path, verdict };
}

/** What is at `file` when it exists and is not a regular file (links followed); undefined otherwise. */
function statOrUndefined(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined; // does not exist yet: the write creates it
  }
}

const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

const sentence = (s: string) => (/[.!?]$/.test(s) ? s : `${s}.`);

/** A reason to deny when the agent's expected content hash is not the file's current one. */
function staleness(root: string, path: string, expected: string | undefined): string | undefined {
  if (expected === undefined) return undefined;
  const current = readOptional(resolve(root, path));
  if (current === undefined)
    return `${path} no longer exists, but you expected content ${expected}; it was deleted since you read it. Re-read the directory, then decide again.`;
  const actual = fileHash(current);
  if (actual === expected.trim().toLowerCase()) return undefined;
  return `${path} changed since you read it (expected ${expected}, it is now ${actual}). Re-read the file, then apply your change to what it holds now.`;
}

/** What the agent can do about a denial: the command to run, or what to ask the user. */
function nextStep(path: string, v: ProblemVerdict, sessionId: string): string {
  const select = (i: Intent) => `\`intent select ${i.id} --session ${sessionId}\``;
  const inProgress = v.owners.filter((o) => o.status === "IN_PROGRESS");
  const startable = v.owners.filter((o) => o.status === "PENDING" || o.status === "BLOCKED");
  const options: string[] = [];
  switch (v.kind) {
    case "out-of-scope":
      for (const o of inProgress) options.push(`ask the user to run ${select(o)} if this change belongs to ${o.id}`);
      for (const o of startable) options.push(`ask the user to start ${o.id} (\`intent start ${o.id}\`)`);
      options.push(`ask the user to widen ${v.intent.id}'s scope to include ${path}`);
      break;
    case "intent-not-in-progress": {
      const s = v.intent.status;
      if (s === "PENDING") options.push(`ask the user to start ${v.intent.id} (\`intent start ${v.intent.id}\`)`);
      else if (s === "BLOCKED") options.push(`ask the user whether ${v.intent.id} is unblocked (\`intent start ${v.intent.id}\` resumes it)`);
      for (const o of inProgress) options.push(`ask the user to run ${select(o)} if this change belongs to ${o.id}`);
      if (s === "COMPLETE" || s === "ARCHIVED") options.push("ask the user which intent this change belongs to");
      break;
    }
    case "no-active-intent":
      for (const o of inProgress) options.push(`ask the user to run ${select(o)} if this change belongs to ${o.id}`);
      for (const o of startable) options.push(`ask the user to start ${o.id} (\`intent start ${o.id}\`)`);
      if (!v.owners.length) options.push(`ask the user which intent should own ${path} (or to add it to .intentignore)`);
      else if (!inProgress.length) options.push("ask the user which intent this change belongs to");
      break;
  }
  return `Next: ${options.join("; or ")}.`;
}
