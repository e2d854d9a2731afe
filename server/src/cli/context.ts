import { resolve } from "node:path";
import { buildIntentContext, CONTEXT_BUDGET_BYTES, type RelatedFile, type SpecInput } from "../engine/context";
import { runGit } from "../engine/git";
import { workspacePath } from "../engine/hooks/gateWrite";
import type { Intent } from "../engine/intents/model";
import type { TraceEntry } from "../engine/ledger/read";
import type { WorkspaceLedger } from "../engine/ledger/workspaceLedger";
import { readOptional } from "../engine/workspaceFiles";
import { CliError, parse, ROOT_OPTION, type Command } from "./args";
import { openWorkspace, readLedger, type CliWorkspace } from "./workspace";

const USAGE = `intent context ID [--budget BYTES] [--root DIR]

Prints the curated <intent_context> XML for an intent: its scope, constraints (inherited ones included) and
acceptance criteria, excerpts of its related specs, the files it concerns and its recent trace. It fits a
budget (default ${CONTEXT_BUDGET_BYTES} bytes): the oldest trace entries go first, then spec excerpts, then related files.`;

/** Bytes of a spec file quoted; the rest is a read away for whoever needs it. */
const SPEC_EXCERPT_BYTES = 4096;
/** Files in scope listed besides the ones with recorded edits. */
const MAX_SCOPE_FILES = 200;

export function specInputs(ws: CliWorkspace, intent: Intent): SpecInput[] {
  return intent.relatedSpecs.map((s) => {
    const path = workspacePath(ws.root, s.ref);
    const text = path === undefined ? undefined : readOptional(resolve(ws.root, path));
    return text === undefined ? { type: s.type, ref: s.ref, missing: true } : { type: s.type, ref: s.ref, excerpt: excerpt(text) };
  });
}

function excerpt(text: string): string {
  if (Buffer.byteLength(text) <= SPEC_EXCERPT_BYTES) return text.trimEnd();
  const cut = Buffer.from(text).subarray(0, SPEC_EXCERPT_BYTES).toString("utf8");
  return `${cut.slice(0, Math.max(cut.lastIndexOf("\n"), 0)).trimEnd()}\n…`;
}

/** Files with recorded edits under the intent (most edited first), then tracked files in its scope. */
export function relatedFiles(ws: CliWorkspace, intent: Intent, ledger: WorkspaceLedger, traces: readonly TraceEntry[]): RelatedFile[] {
  const edits = new Map<string, Set<string>>();
  for (const t of traces) {
    if (!edits.has(t.path)) edits.set(t.path, new Set());
    edits.get(t.path)!.add(t.recordId);
  }
  const touched = ledger
    .filesFor(intent.id)
    .map((path) => ({ path, edits: edits.get(path)?.size ?? 0 }))
    .sort((a, b) => b.edits - a.edits || a.path.localeCompare(b.path));
  const seen = new Set(touched.map((f) => f.path));
  let tracked: string[] = [];
  try {
    tracked = runGit(ws.root, ["ls-files", "-z"]).split("\0").filter(Boolean);
  } catch {
    /* not a repository: the ledger's files are all we know */
  }
  const inScope = tracked.filter((p) => !seen.has(p) && ws.rules.scopes.owns(intent, p)).sort().slice(0, MAX_SCOPE_FILES);
  return [...touched, ...inScope.map((path) => ({ path, edits: 0 }))];
}

export function intentTraces(ledger: WorkspaceLedger, intentId: string): TraceEntry[] {
  return ledger.filesFor(intentId).flatMap((p) => ledger.entriesFor(p).filter((e) => e.intentId === intentId));
}

export const contextCommand: Command = {
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parse("context", argv, { ...ROOT_OPTION, budget: { type: "string" } }, { min: 1, max: 1 });
    const budget = values.budget === undefined ? CONTEXT_BUDGET_BYTES : Number(values.budget);
    if (!Number.isInteger(budget) || budget < 256) throw new CliError(`--budget ${values.budget} must be a whole number of bytes, at least 256`, 2);
    const ws = openWorkspace(io, values.root, { requireIntents: true });
    const id = positionals[0]!;
    const intent = ws.rules.catalogue.byId.get(id);
    if (!intent) throw new CliError(`no intent ${id} in active_intents.yaml; \`intent status\` lists the intents`);
    const ledger = await readLedger(ws);
    const traces = intentTraces(ledger, id);
    const result = buildIntentContext({
      intent,
      catalogue: ws.rules.catalogue,
      specs: specInputs(ws, intent),
      relatedFiles: relatedFiles(ws, intent, ledger, traces),
      traces,
      budget,
    });
    io.out(result.xml);
    return 0;
  },
};
