import { resolve } from "node:path";
import { attribute, type LineAttribution } from "../engine/attribution";
import { shortModel } from "../engine/describe";
import { workspacePath } from "../engine/hooks/gateWrite";
import { readOptional } from "../engine/workspaceFiles";
import { CliError, parse, ROOT_OPTION, type Command } from "./args";
import { openWorkspace, readLedger } from "./workspace";

const USAGE = `intent blame FILE[:LINE[-LINE]] [--json] [--root DIR]

Who wrote each line, under which intent: the ledger's records re-anchored on the file's current content
(moved code keeps its attribution; changed lines lose it and show as untraced).`;

/** One line of `intent blame --json`; the same fields as the editor's intent.blame command. */
export interface BlameLine {
  line: number;
  kind: "traced" | "untraced";
  intent?: string;
  contributor?: string;
  model?: string;
  timestamp?: string;
  traceId?: string;
  exact?: boolean;
  text: string;
}

export function parseTarget(arg: string): { file: string; start?: number; end?: number } {
  const m = /^(.+?)(?::(\d+)(?:-(\d+))?)?$/.exec(arg);
  if (!m) throw new CliError(`"${arg}" is not FILE[:LINE[-LINE]]`, 2);
  const start = m[2] === undefined ? undefined : Number(m[2]);
  const end = m[3] === undefined ? start : Number(m[3]);
  if (start !== undefined && (start < 1 || end! < start)) throw new CliError(`"${arg}": lines are 1-based and START ≤ END`, 2);
  return { file: m[1]!, ...(start !== undefined ? { start, end } : {}) };
}

export function blameLines(lines: readonly string[], attributions: readonly (LineAttribution | undefined)[], start: number, end: number): BlameLine[] {
  const out: BlameLine[] = [];
  for (let n = start; n <= end; n++) {
    const a = attributions[n - 1];
    const text = lines[n - 1] ?? "";
    if (!a) {
      out.push({ line: n, kind: "untraced", text });
      continue;
    }
    const e = a.entry;
    out.push({
      line: n,
      kind: "traced",
      ...(e.intentId ? { intent: e.intentId } : {}),
      contributor: e.contributor.type,
      ...(e.contributor.modelId ? { model: e.contributor.modelId } : {}),
      timestamp: e.timestamp,
      traceId: e.recordId,
      exact: a.exact,
      text,
    });
  }
  return out;
}

function blameText(rows: readonly BlameLine[]): string {
  const cells = rows.map((r) =>
    r.kind === "traced"
      ? [r.intent ?? "no intent", shortModel(r.model) ?? r.contributor ?? "", (r.timestamp ?? "").slice(0, 16).replace("T", " "), `${(r.traceId ?? "").slice(0, 8)}${r.exact ? "" : "?"}`]
      : ["untraced", "", "", ""],
  );
  const widths = [0, 1, 2, 3].map((c) => Math.max(0, ...cells.map((row) => row[c]!.length)));
  const numberWidth = String(rows[rows.length - 1]?.line ?? 1).length;
  return rows.map((r, i) => `${String(r.line).padStart(numberWidth)}  ${cells[i]!.map((cell, c) => cell.padEnd(widths[c]!)).join("  ")} │ ${r.text}\n`).join("");
}

export const blameCommand: Command = {
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parse("blame", argv, { ...ROOT_OPTION, json: { type: "boolean" } }, { min: 1, max: 1 });
    const target = parseTarget(positionals[0]!);
    const ws = openWorkspace(io, values.root);
    const path = workspacePath(ws.root, resolve(io.cwd, target.file));
    if (path === undefined) throw new CliError(`${target.file} is outside the workspace ${ws.root}`);
    const text = readOptional(resolve(ws.root, path));
    if (text === undefined) throw new CliError(`${path}: no such file in ${ws.root}`);
    const split = text.split("\n"); // as hashed: post_hash pins exactly this list
    const lines = text.endsWith("\n") ? split.slice(0, -1) : split; // the "line" after a final newline is not shown
    const last = Math.max(1, lines.length);
    const start = target.start ?? 1;
    const end = Math.min(target.end ?? last, last);
    if (start > last) throw new CliError(`${path} has ${lines.length} lines; line ${start} does not exist`);
    const ledger = await readLedger(ws);
    const rows = blameLines(lines, attribute(ledger.entriesFor(path), split), start, end);
    io.out(values.json ? `${JSON.stringify({ path, lines: rows }, null, 2)}\n` : blameText(rows));
    return 0;
  },
};
