import { oneLine } from "../engine/terminalText";
import { isAbsolute, resolve } from "node:path";
import { blameNewestFirst, type BlameLine } from "../engine/blame";
import { gitAuthorLabel, intentMark, shortModel } from "../engine/describe";
import type { UnreadableLine } from "../engine/ledger/read";
import { textLines } from "../engine/lines";
import { splitLines } from "../engine/hashing";
import { adoptedLinesSync, adoptionOf } from "../io/adoption";
import { gitSourcesOfPath, gitSourcesOfPathInBackground } from "../io/gitSources";
import type { NamedSources } from "../io/ledger/workspaceLedger";
import { realWorkspacePath } from "../io/realPath";
import { readOptional } from "../io/optionalFile";
import { CliError, parse, ROOT_OPTION, type Command, type Options } from "./args";
import { openLedgerWorkspace, readLedger } from "./workspace";

const USAGE = `intent blame FILE[:LINE[-LINE]] [--json] [--root DIR]

Who wrote each line, under which intent: the ledger's records re-anchored on the file's current content
(moved code keeps its attribution; changed lines lose it and show as untraced). A line no record explains
that is as it was at the adoption point \`intent init\` recorded shows as "before adoption", with the author
git names for it there.`;

function parseTarget(arg: string): { file: string; start?: number; end?: number } {
  const m = /^(.+?)(?::(\d+)(?:-(\d+))?)?$/.exec(arg);
  if (!m) throw new CliError(`"${arg}" is not FILE[:LINE[-LINE]]`, 2);
  const start = m[2] === undefined ? undefined : Number(m[2]);
  const end = m[3] === undefined ? start : Number(m[3]);
  if (start !== undefined && (start < 1 || end! < start)) throw new CliError(`"${arg}": lines are 1-based and START ≤ END`, 2);
  return { file: m[1]!, ...(start !== undefined ? { start, end } : {}) };
}

function blameText(rows: readonly BlameLine[]): string {
  // each cell one line of text, escaped before the columns are measured
  const cells = rows.map((r) =>
    r.kind === "traced"
      ? [
          intentMark(r.intent, r.outOfScope === true),
          `${shortModel(r.model) ?? r.person ?? r.contributor ?? ""}${r.source !== undefined ? ` (${r.source})` : ""}${r.from !== undefined ? ` (${r.movedBy ? `moved by ${shortModel(r.movedBy.model) ?? r.movedBy.person ?? r.movedBy.contributor} ` : ""}from ${r.from})` : ""}`,
          (r.timestamp ?? "").slice(0, 16).replace("T", " "),
          `${(r.traceId ?? "").slice(0, 8)}${r.exact ? "" : "?"}`,
        ].map(oneLine)
      : r.kind === "beforeAdoption"
        ? ["before adoption", r.git ? gitAuthorLabel(r.git) : "", (r.git?.date ?? "").slice(0, 16).replace("T", " "), (r.git?.commit ?? "").slice(0, 8)].map(
            oneLine,
          )
        : [r.kind, "", "", ""],
  );
  // a loop, not Math.max(...): a file of more than ~100,000 lines would overflow the call stack
  const widths = [0, 0, 0, 0];
  for (const row of cells) for (let c = 0; c < widths.length; c++) widths[c] = Math.max(widths[c]!, row[c]!.length);
  const numberWidth = String(rows[rows.length - 1]?.line ?? 1).length;
  return rows
    .map((r, i) => `${String(r.line).padStart(numberWidth)}  ${cells[i]!.map((cell, c) => cell.padEnd(widths[c]!)).join("  ")} │ ${r.text}\n`)
    .join("");
}

/** Shown at most: a ledger with thousands of bad lines is `intent verify`'s to list. */
const MAX_WARNINGS = 20;

/**
 * The ledger lines blame could not read (stderr, so the rows stay clean for scripts): an answer from a
 * ledger with skipped records names them, as the editor's `ledger-unreadable` diagnostics do.
 */
export function unreadableWarnings(ledgers: readonly { path: string; lines: readonly UnreadableLine[] }[], command = "blame"): string[] {
  const all = ledgers.flatMap((l) => l.lines.map((u) => `intent ${command}: warning: ${oneLine(l.path)}:${u.line}: ${oneLine(u.message)}\n`));
  if (all.length <= MAX_WARNINGS) return all;
  return [
    ...all.slice(0, MAX_WARNINGS),
    `intent ${command}: warning: and ${all.length - MAX_WARNINGS} more unreadable ledger line(s); \`intent verify\` lists them all\n`,
  ];
}

const OPTIONS = { ...ROOT_OPTION, json: { type: "boolean" } } as const satisfies Options;

/** No path named by git: the records' own chain alone. */
const NO_GIT_NAMES: NamedSources = { renamed: [], split: [] };

export const blameCommand: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv, io) {
    const { values, positionals } = parse("blame", argv, OPTIONS, { min: 1, max: 1 });
    const target = parseTarget(positionals[0]!);
    const ws = openLedgerWorkspace(io, values.root);
    // the file the path really names (links followed, then `..`), as the editor and the gate see it
    const path = realWorkspacePath(ws.root, isAbsolute(target.file) ? target.file : `${io.cwd}/${target.file}`);
    if (path === undefined) throw new CliError(`${target.file} is outside the workspace ${ws.root}`);
    const text = readOptional(resolve(ws.root, path));
    if (text === undefined) throw new CliError(`${path}: no such file in ${ws.root}`);
    const count = textLines(text).length;
    if (target.start !== undefined && target.start > count) throw new CliError(`${path} has ${count} lines; line ${target.start} does not exist`);
    const ledger = await readLedger(ws, { partial: true });
    // a path no record names (renamed, moved or copied there) is explained, if at all, through other paths'
    // records, and git's answer is then most likely asked for below: git runs while the records are read
    // (stopped when the records explain every asked line after all: a copy of content a record pins)
    const stopGit = new AbortController();
    const early = ledger.hasFile(path) ? undefined : gitSourcesOfPathInBackground(ws.root, path, stopGit.signal).catch(() => undefined);
    const adoption = adoptionOf(ws.root);
    const adopted = adoption && adoptedLinesSync(ws.root, adoption, path, text);
    const lines = splitLines(text);
    const blameWith = (named: NamedSources) =>
      blameNewestFirst(ledger.attributionBatches(path, lines, named), text, { start: target.start, end: target.end }, path, adopted);
    // git's renames and splits add owners only to content no record explains (docs/LEDGER.md "What decides a
    // line's owner"): git's answer is used only when the records leave an asked line unexplained, and a file
    // with records of its own that explain it (a module an agent split off, its lines in the paste's
    // moved_lines) costs no git call
    let rows = blameWith(NO_GIT_NAMES);
    if (rows.some((r) => r.kind === "untraced" || r.kind === "beforeAdoption")) {
      const asked = await early;
      rows = blameWith(() => asked ?? gitSourcesOfPath(ws.root, path));
    } else stopGit.abort();
    io.out(values.json ? `${JSON.stringify({ path, lines: rows }, null, 2)}\n` : blameText(rows));
    for (const warning of unreadableWarnings(ledger.unreadable())) io.err(warning);
    return 0;
  },
};
