import { accessSync, constants, existsSync, readdirSync, statSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { agentSessionId } from "../agent/session";
import { runChildProgram, type ProgramRunner } from "../program";
import { verifyWorkspaceLedger } from "../ledger/verifySegments";
import type { Rules } from "../../engine/rules";
import { ruleFileProblems } from "../../engine/ruleFileProblems";
import { removeSession } from "../sessionFiles";
import { ADOPTION_FILE, INTENTS_FILE, ORCHESTRATION_DIR, type RuleFileTexts } from "../../engine/workspaceFiles";
import { readAdoption } from "../adoption";
import { checkOwnRead, readOwnFile } from "../ownFiles";
import { claimedLines, GIT_AI_REF, gitAiImportPlan } from "../gitAiNotes";
import {
  callsHook,
  configuredCommands,
  detectAgents,
  hookScript,
  HOOK_SPECS,
  mergeHookConfig,
  PROBE_SESSION,
  type AgentName,
  type HookSpec,
  type JsonHookSpec,
} from "./agentHooks";
import { GITATTRIBUTES_LINES, GITIGNORE_LINES, missingLines } from "./repoFiles";

/**
 * `intent doctor`: every thing a working setup needs, each checked and reported as ok or a problem with the
 * fix. Reads only (the repository's files only where they land inside the workspace), except that probing a
 * hook runs it once with a read-only tool call (its session file is removed afterwards). The commands are
 * the repository's text: doctor runs only the exact `intent hook AGENT` that `intent init` writes, as an
 * argument list without a shell, and reports anything else unrun.
 */

export interface Check {
  name: string;
  ok: boolean;
  /** Works, but not as a person expects (no intent declared yet): said, with `fix`, without failing. */
  warning?: boolean;
  detail: string;
  /** What to do about a problem. */
  fix?: string;
}

export interface DoctorInput {
  root: string;
  rules: Rules;
  texts: RuleFileTexts;
  env: NodeJS.ProcessEnv;
  now?: number;
  /** How a hook command is run: a child process unless the caller says otherwise (see ProgramRunner). */
  runProgram?: ProgramRunner;
}

/** A lock not refreshed for this long belongs to a writer that is gone (the writers' own takeover time). */
const LOCK_STALE_MS = 10_000;
/** A hook the agent would wait on longer than this is as good as broken. */
const PROBE_TIMEOUT_MS = 15_000;

export async function runDoctor(input: DoctorInput): Promise<Check[]> {
  return [
    intentsFileCheck(input),
    ...settingsChecks(input),
    await ledgerCheck(input),
    linesCheck(input.root, ".gitattributes", GITATTRIBUTES_LINES, "the ledger merges without conflicts"),
    linesCheck(input.root, ".gitignore", GITIGNORE_LINES, "session files, locks and caches stay out of git"),
    onPathCheck("intent-lsp", input.env, "editors start `intent-lsp --stdio`"),
    ...(await hookChecks(input)),
    staleLockCheck(input.root, input.rules.settings.ledgerPath, input.now ?? Date.now()),
    ...adoptionChecks(input.root),
    ...gitAiChecks(input),
  ];
}

/**
 * A repository with git-ai's notes whose lines are not in the ledger yet: said, since hover and blame show
 * those lines as untraced until `intent import git-ai` brings them in. Nothing when there are no notes.
 */
function gitAiChecks(input: DoctorInput): Check[] {
  const name = "git-ai notes";
  let plan: ReturnType<typeof gitAiImportPlan>;
  try {
    plan = gitAiImportPlan(input.root, input.rules.settings.ledgerPath, input.rules.settings.identity);
  } catch {
    return []; // not a git repository, or git cannot say: no notes to speak of
  }
  if (!plan.noteCount) return [];
  const unreadable = plan.unreadable.length ? `; ${plan.unreadable.length} cannot be read (\`intent import git-ai\` names them)` : "";
  if (!plan.fresh.length) return [{ name, ok: true, detail: `the ${plan.noteCount} notes in ${GIT_AI_REF} are in the ledger${unreadable}` }];
  return [
    {
      name,
      ok: true,
      warning: true,
      detail: `${plan.fresh.length} records (${claimedLines(plan.fresh)} lines) from the ${plan.noteCount} notes in ${GIT_AI_REF} are not in the ledger: hover and blame show those lines as untraced${unreadable}`,
      fix: "run `intent import git-ai`",
    },
  ];
}

/** The adoption point, when one is recorded (docs/ATTRIBUTION.md "Before adoption"): said when it cannot be used. */
function adoptionChecks(root: string): Check[] {
  const a = readAdoption(root);
  if (a === undefined) return [];
  if ("problem" in a)
    return [
      {
        name: "adoption point",
        ok: true,
        warning: true,
        detail: `${a.problem}: no line counts as before adoption, every line no record explains is untraced`,
        fix: `remove ${ADOPTION_FILE} and run \`intent init\` to record it again`,
      },
    ];
  return [{ name: "adoption point", ok: true, detail: `commit ${a.commit.slice(0, 12)}, recorded ${a.date.slice(0, 10)}` }];
}

function intentsFileCheck({ rules, texts }: DoctorInput): Check {
  const name = "intents file";
  if (texts[INTENTS_FILE] === undefined)
    return { name, ok: false, detail: `${INTENTS_FILE} does not exist`, fix: "run `intent init` to create it with a commented example" };
  const errors = rules.intents.problems.filter((p) => p.severity === "error");
  if (errors.length) {
    const first = errors[0]!;
    return {
      name,
      ok: false,
      detail: `${INTENTS_FILE}:${first.start.line + 1}:${first.start.character + 1}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ""}`,
      fix: `correct ${INTENTS_FILE} at that line; while it has errors every agent write is denied. \`intent status\` lists every problem`,
    };
  }
  const n = rules.catalogue.intents.length;
  if (n === 0) {
    return {
      name,
      ok: true,
      warning: true,
      detail: `no intent declared in ${INTENTS_FILE}: edits are flagged "no active intent" and agents may write only exempt paths`,
      fix: `declare one under active_intents: (id, name, status: IN_PROGRESS, owned_scope: ["src/**"]), e.g. by uncommenting the example \`intent init\` wrote; \`intent status\` then lists it`,
    };
  }
  return {
    name,
    ok: true,
    detail: `${INTENTS_FILE}: ${n} intent${n === 1 ? "" : "s"}, ${rules.catalogue.intents.filter((i) => i.status === "IN_PROGRESS").length} in progress`,
  };
}

/** Problems in the other rule files (config.jsonc, .intentignore), when there are any. */
function settingsChecks({ rules, texts }: DoctorInput): Check[] {
  const problems = ruleFileProblems(rules, texts).filter((p) => p.severity === "error" && p.file !== INTENTS_FILE);
  return problems.slice(0, 1).map((p) => ({
    name: "settings",
    ok: false,
    detail: `${p.file}:${p.line}:${p.column}: ${p.message}`,
    fix: `correct ${p.file} at that line; while it has errors every agent write is denied`,
  }));
}

async function ledgerCheck({ root, rules }: DoctorInput): Promise<Check> {
  const name = "ledger";
  const path = rules.settings.ledgerPath;
  let report: Awaited<ReturnType<typeof verifyWorkspaceLedger>>;
  try {
    checkOwnRead(root, path); // a ledger linked out of the workspace is not read: its lines would be quoted
    report = await verifyWorkspaceLedger(root, path);
  } catch (e) {
    return { name, ok: false, detail: `${path} cannot be read: ${(e as Error).message}`, fix: "check the file's permissions" };
  }
  if (!report) return { name, ok: true, detail: `${path} has no records yet` };
  const failures = report.problems.filter((p) => p.kind !== "legacy");
  if (!failures.length) return { name, ok: true, detail: `${path}: ${report.records} record${report.records === 1 ? "" : "s"} verify` };
  const first = failures[0]!;
  const chain = failures.some((p) => p.kind === "chain");
  const removed = failures.some((p) => p.kind === "removed");
  const inserted = failures.some((p) => p.kind === "inserted");
  return {
    name,
    ok: false,
    detail: `${first.path ?? path}:${first.line}: ${first.kind}: ${first.message}${failures.length > 1 ? ` (and ${failures.length - 1} more)` : ""}`,
    fix: removed
      ? `records committed at HEAD were removed: put them back from \`git show HEAD:${path}\`, keeping the lines written since the commit after them; \`intent verify\` lists every problem`
      : inserted
        ? `lines were put before records committed at HEAD since the last commit: \`git diff HEAD -- ${path}\` shows them; remove what no writer appended; \`intent verify\` lists every problem`
        : chain
          ? `a record was edited, removed or inserted by hand: compare with git (\`git diff -- ${path}\`) and restore it (\`git checkout -- ${path}\`); \`intent verify\` lists every problem`
          : `\`intent verify\` lists every problem; restore the damaged lines from git (\`git diff -- ${path}\`)`,
  };
}

function linesCheck(root: string, file: string, wanted: readonly string[], why: string): Check {
  let text: string | undefined;
  try {
    text = readOwnFile(root, file);
  } catch (e) {
    return { name: file, ok: false, detail: (e as Error).message, fix: `replace ${file} with a regular file inside the workspace, then run \`intent init\`` };
  }
  const missing = missingLines(text, wanted);
  if (!missing.length) return { name: file, ok: true, detail: `has ${wanted.join(", ")}` };
  return {
    name: file,
    ok: false,
    detail: `missing ${missing.join(", ")} (so that ${why})`,
    fix: "run `intent init` (it appends the missing lines and changes nothing else)",
  };
}

/** Whether an executable named `command` is in one of PATH's folders. */
export function onPath(command: string, env: NodeJS.ProcessEnv): string | undefined {
  const exts = process.platform === "win32" ? (env["PATHEXT"] ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const dir of (env["PATH"] ?? "").split(delimiter).filter(Boolean)) {
    for (const ext of exts) {
      const candidate = join(dir, command + ext);
      try {
        accessSync(candidate, constants.X_OK);
        if (statSync(candidate).isFile()) return candidate;
      } catch {
        /* not here */
      }
    }
  }
  return undefined;
}

function onPathCheck(command: string, env: NodeJS.ProcessEnv, why: string): Check {
  const found = onPath(command, env);
  if (found) return { name: `${command} on PATH`, ok: true, detail: found };
  return {
    name: `${command} on PATH`,
    ok: false,
    detail: `no ${command} in PATH (${why})`,
    fix: "in the intent-lsp checkout run `npm ci && npm run build && npm link`, or point your editor at the full path of dist/server.js",
  };
}

/** Per agent in use: its hooks installed, and each configured command answering a harmless call. */
async function hookChecks(input: DoctorInput): Promise<Check[]> {
  const detected = new Set(detectAgents(input.root));
  const checks: Check[] = [];
  for (const spec of HOOK_SPECS) {
    const { installed, unread } = installedCommands(input.root, spec);
    checks.push(
      ...unread.map((u) => ({
        name: `${spec.agent} hooks`,
        ok: false,
        detail: u,
        fix: "replace the link with a regular file inside the workspace, then run `intent init`",
      })),
    );
    if (!installed.length) {
      if (detected.has(spec.agent) && !unread.length) {
        checks.push({
          name: `${spec.agent} hooks`,
          ok: false,
          detail: `${spec.agent} is used here but its hooks do not call \`intent hook ${spec.agent}\``,
          fix: `run \`intent init --agent ${spec.agent}\``,
        });
      }
      continue;
    }
    const behind = spec.kind === "json" ? behindThisVersion(input.root, spec) : undefined;
    if (behind) checks.push({ name: `${spec.agent} hooks`, ok: false, detail: behind, fix: `run \`intent init --agent ${spec.agent}\`` });
    for (const { file, command } of installed) checks.push(await probeHook(input, spec, file, command));
  }
  return checks;
}

/**
 * What the agent's hook file lacks of what this version's `intent init` writes into it: events without an
 * entry of ours, or an entry whose matcher leaves out tools the gate judges (such a tool is never gated).
 */
function behindThisVersion(root: string, spec: JsonHookSpec): string | undefined {
  let text: string | undefined;
  try {
    text = readOwnFile(root, spec.file);
  } catch {
    return undefined; // said by the check of the installed commands
  }
  if (text === undefined) return undefined;
  const merged = mergeHookConfig(spec, text);
  if (!merged.ok || merged.text === text) return undefined;
  const gaps = [
    ...(merged.added.length ? [`no entry of intent-lsp's for ${merged.added.join(", ")}`] : []),
    ...(merged.matched.length
      ? [
          `the matcher of ${[merged.matched.slice(0, -1).join(", "), merged.matched.at(-1)].filter(Boolean).join(" and ")} is not this version's, so some tools that write are not gated`,
        ]
      : []),
  ];
  return `${spec.file}: ${gaps.join("; ")}`;
}

interface Installed {
  file: string;
  /** The command as configured (for a Cline script: the script's text). */
  command: string;
}

function installedCommands(root: string, spec: HookSpec): { installed: Installed[]; unread: string[] } {
  const installed: Installed[] = [];
  const unread: string[] = [];
  const read = (file: string): string | undefined => {
    try {
      return readOwnFile(root, file);
    } catch (e) {
      unread.push((e as Error).message);
      return undefined;
    }
  };
  if (spec.kind === "plugin") {
    const text = read(spec.file);
    if (text !== undefined) installed.push({ file: spec.file, command: text });
    return { installed, unread };
  }
  if (spec.kind === "scripts") {
    for (const file of spec.files) {
      const text = read(file);
      if (text !== undefined && callsHook(text, spec.agent)) installed.push({ file, command: text });
    }
    return { installed, unread };
  }
  // Copilot reads every .json in its folder; the others one file
  const files = spec.agent === "copilot" ? jsonFilesIn(root, dirname(spec.file)) : [spec.file];
  for (const file of files) {
    const text = read(file);
    if (text === undefined) continue;
    for (const command of configuredCommands(text, spec.agent)) installed.push({ file, command });
  }
  return { installed, unread };
}

function jsonFilesIn(root: string, dir: string): string[] {
  try {
    checkOwnRead(root, dir);
    return readdirSync(join(root, dir))
      .filter((n) => n.endsWith(".json"))
      .map((n) => `${dir}/${n}`);
  } catch {
    return [];
  }
}

/**
 * The arguments of a configured hook command when it is exactly what `intent init` writes (`intent hook
 * AGENT`, or a file init writes whole, a Cline script or a plugin, byte for byte as `whole`); undefined for anything else. The
 * command is split into words without a shell: no quoting, variables, separators or redirections survive.
 */
export function recognisedHookArgs(command: string, agent: AgentName, whole: false | string): string[] | undefined {
  if (whole !== false) return command === whole ? ["hook", agent] : undefined;
  const words = command.trim().split(/[ \t]+/);
  return words.length === 3 && words[0] === "intent" && words[1] === "hook" && words[2] === agent ? ["hook", agent] : undefined;
}

async function probeHook(input: DoctorInput, spec: HookSpec, file: string, command: string): Promise<Check> {
  const name = `${spec.agent} hook`;
  const script = spec.kind === "scripts" || spec.kind === "plugin";
  const shown = script ? file : `\`${command}\` (${file})`;
  const args = recognisedHookArgs(command, spec.agent, spec.kind === "scripts" ? hookScript(spec.agent) : spec.kind === "plugin" ? spec.text : false);
  if (!args) {
    return {
      name,
      ok: false,
      detail: `${shown}: not an intent-lsp hook command; not run (doctor runs only the exact \`intent hook ${spec.agent}\` that \`intent init\` writes)`,
      fix: script
        ? `check ${file} yourself, or remove it and run \`intent init --agent ${spec.agent}\` to write the standard ${spec.kind === "plugin" ? "plugin" : "script"}`
        : `check that command yourself, or replace it with exactly \`intent hook ${spec.agent}\` in ${file}`,
    };
  }
  const fix = `make the command run from ${input.root}: put \`intent\` on PATH (\`npm link\` in the intent-lsp checkout), then run \`intent doctor\` again`;
  const exe = onPath("intent", input.env);
  if (!exe) return { name, ok: false, detail: `${shown} cannot run: no intent in PATH`, fix };
  // an argument list, no shell: nothing of the repository's text is interpreted
  const r = await (input.runProgram ?? runChildProgram)(exe, args, {
    cwd: input.root,
    input: JSON.stringify(spec.probe(input.root)),
    env: input.env,
    timeoutMs: PROBE_TIMEOUT_MS,
  });
  try {
    removeSession(input.root, agentSessionId(spec.sessionPrefix, PROBE_SESSION));
  } catch {
    /* no session file was made */
  }
  // EPIPE: the command exited before reading the probe; its exit status says why
  const exitedEarly = r.error?.code === "EPIPE" && typeof r.status === "number";
  if (r.error && !exitedEarly) {
    const why = r.error.code === "ETIMEDOUT" ? `did not answer within ${PROBE_TIMEOUT_MS / 1000} s` : r.error.message;
    return { name, ok: false, detail: `${shown} ${why}`, fix };
  }
  const stderr = r.stderr.trim().split("\n")[0] ?? "";
  if (r.status !== 0) return { name, ok: false, detail: `${shown} failed: exit code ${r.status}${stderr ? `: ${stderr}` : ""}`, fix };
  const denial = /\[intent-lsp: ([a-z-]+)\][^"\n]*/.exec(r.stdout);
  if (denial)
    return {
      name,
      ok: false,
      detail: `${shown} answers a read-only call with a denial: ${denial[0]}`,
      fix: "fix what the denial names (`intent status` lists the workspace's problems)",
    };
  return { name, ok: true, detail: `${shown} answers` };
}

function staleLockCheck(root: string, ledgerPath: string, now: number): Check {
  const candidates = new Set<string>();
  for (const n of safeList(join(root, ORCHESTRATION_DIR))) if (n.endsWith(".lock")) candidates.add(`${ORCHESTRATION_DIR}/${n}`);
  if (existsSync(join(root, `${ledgerPath}.lock`))) candidates.add(`${ledgerPath}.lock`);
  const stale = [...candidates].filter((p) => {
    try {
      const st = statSync(join(root, p));
      return st.isDirectory() && now - st.mtimeMs > LOCK_STALE_MS;
    } catch {
      return false;
    }
  });
  if (!stale.length) return { name: "locks", ok: true, detail: "no stale lock directories" };
  return {
    name: "locks",
    ok: false,
    detail: `stale lock director${stale.length === 1 ? "y" : "ies"} (not refreshed for more than ${LOCK_STALE_MS / 1000} s): ${stale.join(", ")}`,
    fix: `if no editor or agent is writing right now, remove ${stale.length === 1 ? "it" : "them"}: \`rm -r ${stale.join(" ")}\` (the next writer would also take ${stale.length === 1 ? "it" : "them"} over)`,
  };
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
