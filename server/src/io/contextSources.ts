import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { buildIntentContext, type ContextResult, type RelatedFile, type SpecInput } from "../engine/context";
import { runGit } from "./git";
import { toWorkspacePath } from "../engine/paths";
import type { Intent } from "../engine/intents/model";
import type { TraceEntry } from "../engine/ledger/read";
import type { WorkspaceLedger } from "./ledger/workspaceLedger";
import type { Rules } from "../engine/rules";
import { readOptional } from "./optionalFile";
import { unsafeLinkOnTheWay } from "./ownFiles";
import { realWorkspacePath } from "./realPath";

/**
 * Where an intent's context comes from (the I/O edge of context.ts): its spec files, the files it touched
 * or owns, and its trace. `intent context` and the editor's `intent.showContext` both call this.
 */
export function gatherIntentContext(root: string, rules: Rules, ledger: WorkspaceLedger, intent: Intent, budget?: number): ContextResult {
  const traces = intentTraces(ledger, intent.id);
  return buildIntentContext({
    intent,
    catalogue: rules.catalogue,
    specs: specInputs(root, intent),
    relatedFiles: relatedFiles(root, rules, intent, ledger, traces),
    traces,
    budget,
  });
}

/** Bytes of a spec file quoted; the rest is a read away for whoever needs it. */
const SPEC_EXCERPT_BYTES = 4096;
/** Files in scope listed besides the ones with recorded edits. */
const MAX_SCOPE_FILES = 200;

/**
 * Each spec's excerpt, read only where the file really lands inside the workspace: a committed link to
 * `~/.aws/credentials` must not be quoted into an agent's context. Such a spec is listed, unread, with why.
 */
function specInputs(root: string, intent: Intent): SpecInput[] {
  return intent.relatedSpecs.map((s) => {
    const path = toWorkspacePath(root, s.ref);
    const real = path === undefined ? undefined : realWorkspacePath(root, path);
    if (path !== undefined && real === undefined) {
      const link = unsafeLinkOnTheWay(root, path);
      return { type: s.type, ref: s.ref, notRead: `not read: ${link ?? `${path} leads outside the workspace`}` };
    }
    let text: string | undefined;
    try {
      text = real === undefined ? undefined : readOptional(resolve(realpathSync(root), real));
    } catch (e) {
      return { type: s.type, ref: s.ref, notRead: `not read: ${(e as Error).message}` };
    }
    return text === undefined ? { type: s.type, ref: s.ref, missing: true } : { type: s.type, ref: s.ref, excerpt: excerpt(text) };
  });
}

function excerpt(text: string): string {
  if (Buffer.byteLength(text) <= SPEC_EXCERPT_BYTES) return text.trimEnd();
  const cut = Buffer.from(text).subarray(0, SPEC_EXCERPT_BYTES).toString("utf8");
  return `${cut.slice(0, Math.max(cut.lastIndexOf("\n"), 0)).trimEnd()}\n…`;
}

/** Files with recorded edits under the intent (most edited first), then tracked files in its scope. */
function relatedFiles(root: string, rules: Rules, intent: Intent, ledger: WorkspaceLedger, traces: readonly TraceEntry[]): RelatedFile[] {
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
    tracked = runGit(root, ["ls-files", "-z"]).split("\0").filter(Boolean);
  } catch {
    /* not a repository: the ledger's files are all we know */
  }
  const inScope = tracked
    .filter((p) => !seen.has(p) && rules.scopes.owns(intent, p))
    .sort()
    .slice(0, MAX_SCOPE_FILES);
  return [...touched, ...inScope.map((path) => ({ path, edits: 0 }))];
}

function intentTraces(ledger: WorkspaceLedger, intentId: string): TraceEntry[] {
  return ledger.filesFor(intentId).flatMap((p) => ledger.entriesFor(p).filter((e) => e.intentId === intentId));
}
