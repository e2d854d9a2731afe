import { DiagnosticSeverity, type Diagnostic } from "vscode-languageserver";
import { DIAGNOSTIC_SOURCE, type DiagnosticCode } from "@shared/diagnosticCodes";
import type { Settings, Severity } from "@shared/settings";
import { isProblem, verdictMessage } from "../engine/gate";
import type { Problem } from "../engine/intents/model";
import { lineStarts, positionAt } from "../engine/lines";
import type { SettingsProblem } from "../engine/settings";
import type { TrackedDocument } from "./documents";

const SEVERITY: Record<Exclude<Severity, "off">, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

/** A diagnostic at the configured severity (or `severity` when given), or undefined when the code is "off". */
export function makeDiagnostic(
  settings: Settings,
  code: DiagnosticCode,
  range: Diagnostic["range"],
  message: string,
  severity?: DiagnosticSeverity,
): Diagnostic | undefined {
  const configured = settings.severity[code];
  if (configured === "off") return undefined;
  return { range, severity: severity ?? SEVERITY[configured], code, source: DIAGNOSTIC_SOURCE, message };
}

/**
 * Diagnostics a document is published with at most. Past this many (a file edited on every other line of
 * hundreds of thousands has a diagnostic per edited line), every publish would build and send tens of
 * megabytes after each keystroke, with every request waiting, to an editor that lists them all in one
 * Problems panel: the first are sent, in the order of the file, and a last one says where they stop.
 */
export const MAX_DIAGNOSTICS = 1_000;

/** A source's first diagnostics in the file, and how many more it has, counted but not made. */
export interface FirstDiagnostics {
  list: Diagnostic[];
  more: number;
}

/**
 * At most `MAX_DIAGNOSTICS` of `diagnostics`, the first in the file, and where the rest start. `omitted`:
 * diagnostics the sources counted without making them, each after the `MAX_DIAGNOSTICS + 1` its source gave.
 */
export function shownDiagnostics(settings: Settings, diagnostics: Diagnostic[], omitted = 0): Diagnostic[] {
  if (diagnostics.length <= MAX_DIAGNOSTICS) return diagnostics;
  // stable: diagnostics at one place keep their order
  const sorted = diagnostics.slice().sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  const shown = sorted.slice(0, MAX_DIAGNOSTICS);
  const at = sorted[MAX_DIAGNOSTICS]!.range.start;
  const rest = sorted.length + omitted - MAX_DIAGNOSTICS;
  const more = makeDiagnostic(
    settings,
    "findings-not-shown",
    { start: at, end: at },
    `${rest.toLocaleString("en")} more ${rest === 1 ? "finding" : "findings"} in this file, from this line on, ${rest === 1 ? "is" : "are"} not shown: the editor is sent a file's first ${MAX_DIAGNOSTICS.toLocaleString("en")}. Hover a line for its verdict; \`intent check\` lists every finding of the saved file.`,
  );
  if (more) shown.push(more);
  return shown;
}

/**
 * Scope diagnostics of one open document: one per block of lines edited since the baseline, the first
 * `limit` made and the rest counted. Cost grows with the number of edited blocks; the verdict is cached per
 * rules generation.
 */
export function scopeDiagnostics(doc: TrackedDocument, limit = Number.POSITIVE_INFINITY): FirstDiagnostics {
  const verdict = doc.verdict();
  if (!verdict || !isProblem(verdict) || !doc.ctx || doc.path === undefined) return { list: [], more: 0 };
  const message = verdictMessage(doc.path, verdict);
  const { blocks, total } = doc.edits.firstBlocks(limit);
  const out: Diagnostic[] = [];
  for (const block of blocks) {
    const range = { start: { line: block.start, character: 0 }, end: { line: block.end, character: doc.lineText(block.end).length } };
    const d = makeDiagnostic(doc.ctx.rules.settings, verdict.kind, range, message);
    if (d) out.push({ ...d, data: { path: doc.path } });
  }
  // a code switched off makes none, and has none to count
  return { list: out, more: out.length ? total - blocks.length : 0 };
}

/** `intent-schema` diagnostics at the offending YAML nodes; warnings stay warnings. */
export function intentFileDiagnostics(settings: Settings, problems: readonly Problem[], usingLastGood: boolean): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const p of problems) {
    // a warning in the file (unknown field, older dialect) stays a warning whatever intent-schema's severity is
    const severity = p.severity === "error" ? undefined : DiagnosticSeverity.Warning;
    const suffix = p.severity === "error" && usingLastGood ? " (the last valid version of this file stays in force until this is fixed)" : "";
    const d = makeDiagnostic(settings, "intent-schema", { start: p.start, end: p.end }, p.message + suffix, severity);
    if (d) out.push(d);
  }
  return out;
}

export function configDiagnostics(settings: Settings, text: string, problems: readonly SettingsProblem[]): Diagnostic[] {
  const starts = lineStarts(text);
  return problems
    .map((p) =>
      makeDiagnostic(
        settings,
        "settings-invalid",
        { start: positionAt(starts, p.span.start, text), end: positionAt(starts, Math.max(p.span.start, p.span.end), text) },
        p.message,
      ),
    )
    .filter((d): d is Diagnostic => !!d);
}

/** One `ledger-unreadable` per unreadable line, in the ledger file itself. */
export function ledgerDiagnostics(settings: Settings, ledgerPath: string, lines: readonly { line: number; message: string }[]): Diagnostic[] {
  return lines
    .map((u) =>
      makeDiagnostic(
        settings,
        "ledger-unreadable",
        { start: { line: u.line - 1, character: 0 }, end: { line: u.line - 1, character: 0 } },
        `${ledgerPath}:${u.line}: ${u.message} (skipped; the line is left as it is)`,
      ),
    )
    .filter((d): d is Diagnostic => !!d);
}
