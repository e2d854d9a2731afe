/**
 * The curated `<intent_context>` an agent (or a person) reads before working on an intent (docs/CLI.md and docs/AGENTS.md): the
 * intent itself, excerpts of its specs, the files it concerns and its recent trace, within a byte budget.
 * When over budget, the least useful parts go first: the oldest trace entries, then spec excerpts (the
 * reference stays, so the reader knows where to look), then related files. The intent itself always stays.
 */
import { inheritedConstraints } from "./intents/load";
import type { Catalogue, Intent } from "./intents/model";
import type { TraceEntry } from "./ledger/read";
import { newestFirst } from "./ledger/entryOrder";

export const CONTEXT_BUDGET_BYTES = 16 * 1024;

export interface SpecInput {
  type: string;
  ref: string;
  /** The start of the spec's text; undefined when the file could not be read. */
  excerpt?: string;
  missing?: boolean;
  /** Why the file was not read (it leads out of the workspace, or through a loop of links): said in the output. */
  notRead?: string;
}

export interface RelatedFile {
  path: string;
  /** Recorded edits under this intent (0 for files that are only in scope). */
  edits: number;
}

interface ContextInput {
  intent: Intent;
  catalogue: Catalogue;
  specs: readonly SpecInput[];
  relatedFiles: readonly RelatedFile[];
  /** Entries recorded under the intent, any order. */
  traces: readonly TraceEntry[];
  budget?: number;
}

export interface ContextResult {
  xml: string;
  bytes: number;
  omitted: { traces: number; specExcerpts: number; files: number };
}

export function buildIntentContext(input: ContextInput): ContextResult {
  const budget = input.budget ?? CONTEXT_BUDGET_BYTES;
  const { intent } = input;

  // Every part is rendered once; dropping is then arithmetic on byte sizes (O(1) per step), never a re-render.
  const open = `<intent_context id="${attr(intent.id)}" status="${attr(intent.status)}">\n`;
  const close = "</intent_context>\n";
  const head = renderHead(intent, input.catalogue);
  const traces = newestFirst(input.traces).map(renderTrace); // dropped from the end: oldest first
  const specFull = input.specs.map((s) => renderSpec(s, true));
  const specRef = input.specs.map((s) => renderSpec(s, false));
  const files = input.relatedFiles.map(renderFile);
  const withExcerpt = input.specs.map((s) => s.excerpt !== undefined);

  let keepTraces = traces.length;
  let keepFiles = files.length;
  let droppedExcerpts = 0;
  let traceBytes = sum(traces);
  let fileBytes = sum(files);
  let specBytes = sum(specFull);
  const fixed = bytes(open) + bytes(head) + bytes(close) + wrapBytes("related_specs", specFull.length);
  const size = () =>
    fixed +
    specBytes +
    wrapBytes("related_files", keepFiles) +
    fileBytes +
    wrapBytes("recent_traces", keepTraces) +
    traceBytes +
    bytes(omittedNote(traces.length - keepTraces, droppedExcerpts, files.length - keepFiles));

  while (size() > budget && keepTraces > 0) traceBytes -= bytes(traces[--keepTraces]!);
  for (let i = input.specs.length - 1; i >= 0 && size() > budget; i--) {
    if (!withExcerpt[i]) continue;
    withExcerpt[i] = false;
    droppedExcerpts++;
    specBytes += bytes(specRef[i]!) - bytes(specFull[i]!);
  }
  while (size() > budget && keepFiles > 0) fileBytes -= bytes(files[--keepFiles]!);

  const omitted = { traces: traces.length - keepTraces, specExcerpts: droppedExcerpts, files: files.length - keepFiles };
  const xml = [
    open,
    head,
    section(
      "related_specs",
      input.specs.map((_, i) => (withExcerpt[i] ? specFull[i]! : specRef[i]!)),
    ),
    section("related_files", files.slice(0, keepFiles)),
    section("recent_traces", traces.slice(0, keepTraces)),
    omittedNote(omitted.traces, omitted.specExcerpts, omitted.files),
    close,
  ].join("");
  return { xml, bytes: bytes(xml), omitted };
}

function renderHead(intent: Intent, catalogue: Catalogue): string {
  const lines = ["  <intent>\n", `    <name>${text(intent.name)}</name>\n`, `    <status>${text(intent.status)}</status>\n`];
  if (intent.parentIntent) lines.push(`    <parent_intent>${text(intent.parentIntent)}</parent_intent>\n`);
  lines.push(list("owned_scope", "glob", intent.ownedScope));
  lines.push(list("constraints", "constraint", inheritedConstraints(intent, catalogue.byId)));
  lines.push(list("acceptance_criteria", "criterion", intent.acceptanceCriteria));
  if (intent.tags.length) lines.push(list("tags", "tag", intent.tags));
  lines.push("  </intent>\n");
  return lines.join("");
}

function list(outer: string, inner: string, items: readonly string[]): string {
  if (!items.length) return `    <${outer}/>\n`;
  return `    <${outer}>\n${items.map((i) => `      <${inner}>${text(i)}</${inner}>\n`).join("")}    </${outer}>\n`;
}

function renderSpec(spec: SpecInput, withExcerpt: boolean): string {
  const attrs = `type="${attr(spec.type)}" ref="${attr(spec.ref)}"${spec.missing ? ' missing="true"' : ""}${spec.notRead ? ` not_read="${attr(spec.notRead)}"` : ""}`;
  if (!withExcerpt || spec.excerpt === undefined) return `    <spec ${attrs}/>\n`;
  return `    <spec ${attrs}>\n${text(spec.excerpt)}\n    </spec>\n`;
}

function renderFile(f: RelatedFile): string {
  return `    <file path="${attr(f.path)}"${f.edits ? ` edits="${f.edits}"` : ""}/>\n`;
}

function renderTrace(e: TraceEntry): string {
  const lines = e.startLine === 0 ? "" : ` lines="${e.startLine}-${e.endLine}"`;
  const model = e.contributor.modelId ? ` model="${attr(e.contributor.modelId)}"` : "";
  return `    <trace id="${attr(e.recordId)}" time="${attr(e.timestamp)}" file="${attr(e.path)}"${lines} contributor="${attr(e.contributor.type)}"${model}/>\n`;
}

function section(name: string, items: readonly string[]): string {
  return items.length ? `  <${name}>\n${items.join("")}  </${name}>\n` : "";
}

function wrapBytes(name: string, count: number): number {
  return count ? bytes(`  <${name}>\n  </${name}>\n`) : 0;
}

function omittedNote(traces: number, specs: number, files: number): string {
  if (!traces && !specs && !files) return "";
  return `  <omitted reason="budget" traces="${traces}" spec_excerpts="${specs}" files="${files}"/>\n`;
}

const bytes = (s: string) => Buffer.byteLength(s, "utf8");
const sum = (parts: readonly string[]) => parts.reduce((n, p) => n + bytes(p), 0);

function text(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function attr(s: string): string {
  return text(s).replace(/"/g, "&quot;");
}
