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
 * Scope diagnostics of one open document: one per block of lines edited since the baseline. Cost grows
 * with the number of edited blocks; the verdict is cached per rules generation.
 */
export function scopeDiagnostics(doc: TrackedDocument): Diagnostic[] {
  const verdict = doc.verdict();
  if (!verdict || !isProblem(verdict) || !doc.ctx || doc.path === undefined) return [];
  const message = verdictMessage(doc.path, verdict);
  const out: Diagnostic[] = [];
  for (const block of doc.edits.blocks()) {
    const range = { start: { line: block.start, character: 0 }, end: { line: block.end, character: doc.lineText(block.end).length } };
    const d = makeDiagnostic(doc.ctx.rules.settings, verdict.kind, range, message);
    if (d) out.push({ ...d, data: { path: doc.path } });
  }
  return out;
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
