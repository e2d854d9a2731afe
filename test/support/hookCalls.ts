import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { Prng } from "../oracle/prng";
import { ALL_AGENTS, type GatedAgent } from "./gatedAgents";
import { INTENTS_BY_STATUS } from "./intentsByStatus";
import { LEDGER } from "./ledgerFile";
import { TempWorkspace } from "./workspace";

/**
 * Generated agent hook calls for the differential tests of the hook service: the same session of calls is
 * replayed on twin workspaces, one answered by the service and one by each call's own process, and every
 * answer and the ledgers they leave must be the same once each workspace's path is taken out.
 */

/** Files of every kind of owner (docs: one intent per status, none, ignored), and odd names. */
const FILES: Record<string, string> = {
  "a/pending.ts": "export const pending = 1;\n",
  "b/work.ts": "export const work = 1;\n",
  "b/sp ace.ts": "export const space = 1;\n",
  "b/ünï.ts": "export const unicode = 1;\n",
  "c/done.ts": "export const done = 1;\n",
  "d/blocked.ts": "export const blocked = 1;\n",
  "e/archived.ts": "export const archived = 1;\n",
  "x/unowned.ts": "export const unowned = 1;\n",
};

/** Paths an agent may name: existing and new files of each owner, a link into a COMPLETE intent, `..`, `~`. */
export const PATHS = [
  ...Object.keys(FILES),
  "b/new.ts",
  "c/new.ts",
  "x/new.ts",
  "b/../c/done.ts",
  "b/link/done.ts",
  "~/notes.ts",
  "../outside.ts",
  ".orchestration/active_intents.yaml",
];

export const SHELL = [
  "ls",
  "git status --short",
  "echo '// more' >> b/work.ts",
  "echo '// more' >> c/done.ts",
  "rm -f d/blocked.ts",
  "sed -i 's/1/2/' x/unowned.ts",
  "touch b/touched.ts",
];

/** A twin of the others: the same catalogue, files and first commit. */
export function twinWorkspace(): TempWorkspace {
  const ws = new TempWorkspace({ withLedger: false });
  ws.write(".orchestration/active_intents.yaml", INTENTS_BY_STATUS);
  // the circuit breaker's window as long as it goes: twins call at different instants, and a denial at the
  // edge of a 60 s window would count on one twin and not the other. The count, the stop and the reset by an
  // allowed call are compared all the same.
  ws.write(
    ".orchestration/config.jsonc",
    ws.read(".orchestration/config.jsonc").replace(/\s*\}\s*$/, ',\n  "circuitBreaker": { "denials": 5, "windowSeconds": 86400 }\n}\n'),
  );
  for (const [p, text] of Object.entries(FILES)) ws.write(p, text);
  symlinkSync("../c", ws.path("b/link"));
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", ...args], {
      cwd: ws.root,
      stdio: "ignore",
      // one date, so that twins made in different seconds have one first commit, named alike in their records
      env: { ...process.env, GIT_AUTHOR_DATE: "2026-11-01T10:00:00Z", GIT_COMMITTER_DATE: "2026-11-01T10:00:00Z" },
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "first");
  return ws;
}

/** One generated call: what the agent did before it (a file changed, a command run) and its payload. */
export interface HookCall {
  agent: GatedAgent;
  phase: "pre" | "post";
  /** The payload for a workspace. */
  payload(ws: TempWorkspace): unknown;
  /** What the agent's tool did before a post call, done to each twin alike. */
  act?(ws: TempWorkspace): void;
  env: NodeJS.ProcessEnv;
  /** A selection made before the call (an intent id, or none), alike in each twin. */
  select?: string | null;
  label: string;
}

export const MODELS = [undefined, "anthropic/claude-opus-4-1", "openai/gpt-5"];

/** `count` calls drawn from `seed`: every agent, pre and post, writes and shell commands, cwd forms, paths. */
export function generateCalls(seed: number, count: number): HookCall[] {
  const rng = new Prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[rng.int(0, xs.length - 1)]!;
  const calls: HookCall[] = [];
  let change = 0;
  while (calls.length < count) {
    const agent = pick(ALL_AGENTS);
    const model = pick(MODELS);
    const env: NodeJS.ProcessEnv = model ? { INTENT_LSP_MODEL: model } : {};
    const cwdForm = pick(["absolute", "dot", "below"] as const);
    const select = rng.next() < 0.2 ? pick(["INT-002", "INT-003", null] as const) : undefined;
    if (rng.next() < 0.35) {
      const command = pick(SHELL);
      const payload = (phase: "pre" | "post") => (ws: TempWorkspace) => anchor(ws, agent.shell(ws, phase, command), cwdForm);
      const label = `${agent.agent} shell ${JSON.stringify(command)} cwd=${cwdForm}`;
      calls.push({ agent, phase: "pre", payload: payload("pre"), env, ...(select !== undefined ? { select } : {}), label: `${label} pre` });
      calls.push({ agent, phase: "post", payload: payload("post"), env, act: (ws) => sh(ws, command), label: `${label} post` });
      continue;
    }
    const path = pick(PATHS);
    const n = ++change;
    const edit = { path, from: "= 1;", to: `= 1; // change ${n}` };
    const payload = (phase: "pre" | "post") => (ws: TempWorkspace) => anchor(ws, agent.write(ws, phase, edit), cwdForm);
    const label = `${agent.agent} write ${path} cwd=${cwdForm}`;
    calls.push({ agent, phase: "pre", payload: payload("pre"), env, ...(select !== undefined ? { select } : {}), label: `${label} pre` });
    if (rng.next() < 0.7) calls.push({ agent, phase: "post", payload: payload("post"), env, act: (ws) => applyEdit(ws, edit), label: `${label} post` });
  }
  return calls.slice(0, count);
}

/**
 * The payload with its working folder in one of the forms agents use: absolute (as generated), `.` with
 * paths relative to the workspace, or a folder below it (`b`) given relatively.
 */
function anchor(ws: TempWorkspace, payload: unknown, form: "absolute" | "dot" | "below"): unknown {
  if (form === "absolute") return payload;
  const base = form === "dot" ? "." : "b";
  const rel = (p: string) => (form === "dot" ? p : `../${p}`);
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === "string") {
      if (v === ws.root) return base;
      if (v.startsWith(`${ws.root}/`) && key !== "transcript_path") return rel(v.slice(ws.root.length + 1));
      return v;
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(payload);
}

function applyEdit(ws: TempWorkspace, edit: { path: string; from: string; to: string }): void {
  if (edit.path.startsWith("~") || edit.path.startsWith("../") || edit.path.startsWith(".orchestration")) return;
  const file = ws.path(edit.path);
  const before = existsSync(file) ? readFileSync(file, "utf8") : "export const fresh = 1;\n";
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, before.includes(edit.from) ? before.replace(edit.from, edit.to) : `${before}${edit.to}\n`);
}

function sh(ws: TempWorkspace, command: string): void {
  try {
    execFileSync("sh", ["-c", command], { cwd: ws.root, stdio: "ignore" });
  } catch {
    /* a command that fails changes what it changed */
  }
}

/** Before a call: its selection and what its tool did, in a workspace. */
export function prepare(ws: TempWorkspace, call: HookCall): void {
  if (call.select !== undefined) ws.select(call.select);
  call.act?.(ws);
}

/** A text with the workspace's path taken out (it differs between twins). */
export const withoutRoot = (ws: TempWorkspace, text: string) => text.split(ws.root).join("<ws>");

/** The ledger's records, without what differs between twins by nature: ids, times, the chain, the path. */
export function comparableRecords(ws: TempWorkspace, opts: { skipTorn?: boolean } = {}): unknown[] {
  const file = ws.path(LEDGER);
  if (!existsSync(file)) return [];
  const records: unknown[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    let record: Record<string, unknown> & { metadata?: Record<string, Record<string, unknown>> };
    try {
      record = JSON.parse(withoutRoot(ws, line));
    } catch (e) {
      // a line torn by a writer killed mid-append: the ledger's readers skip it, and so does a comparison that allows it
      if (opts.skipTorn) continue;
      throw e;
    }
    const { id: _id, timestamp: _t, ...rest } = record;
    delete rest.metadata?.["dev.intent-lsp"]?.["prev"];
    records.push(rest);
  }
  return records;
}

export function removeTwin(ws: TempWorkspace): void {
  rmSync(ws.root, { recursive: true, force: true });
}
