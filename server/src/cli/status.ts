import { oneLine } from "../engine/terminalText";
import { relativeTime } from "../engine/describe";
import { ruleFileProblems } from "../engine/ruleFileProblems";
import { type SessionRecord, WORKSPACE_SELECTION } from "../engine/sessions";
import { SESSIONS_DIR } from "../engine/workspaceFiles";
import { isLiveSession } from "../io/liveSessions";
import { listSessions, readSelectionFiles } from "../io/sessionFiles";
import { intentStatusJson, intentStatusReport, intentStatusText } from "./intentStatus";
import { parse, ROOT_OPTION, type Command, type Options } from "./args";
import { openWorkspace, type CliWorkspace } from "./workspace";

const USAGE = `intent status [ID] [--json] [--root DIR]

The active selection (or auto-selection), every intent with its status and scope, the problems in
active_intents.yaml and config.jsonc (file:line:col), and the live sessions: editors and agents working in this workspace
now (a session whose heartbeat stopped more than two minutes ago has expired and is not listed).

With an intent's ID: that intent, its acceptance criteria, and its lifecycle from the ledger (the commit
it started at; its completion, with the verification of its criteria).`;

interface StatusReport {
  root: string;
  selection: { intent: string; by: string; at: string } | null;
  autoSelect: boolean;
  intents: { id: string; name: string; status: string; owned_scope: string[]; selected: boolean }[];
  problems: { file: string; line: number; column: number; severity: string; message: string }[];
  sessions: {
    id: string;
    client: string;
    intent: string | null;
    heartbeat: string;
    working_on: string[];
    unsaved: string[];
    /** What a shell command of the session changed unasked; its writes are denied until it is selected for again. */
    held: string | null;
  }[];
}

/** A workspace selection file that is there but unreadable: which intent is selected is not known. */
function selectionProblems(why: string | undefined): StatusReport["problems"] {
  if (why === undefined) return [];
  const message = `${why}, so which intent is selected is not known and every write outside an exempt path is denied; select again with \`intent select ID\``;
  return [{ file: `${SESSIONS_DIR}/${WORKSPACE_SELECTION}`, line: 1, column: 1, severity: "error", message }];
}

function statusReport(ws: CliWorkspace, sessions: readonly SessionRecord[], now: number): StatusReport {
  const files = readSelectionFiles(ws.root);
  const sel = files.workspace;
  return {
    root: ws.root,
    selection: sel?.intent ? { intent: sel.intent, by: sel.by, at: sel.selectedAt } : null,
    autoSelect: ws.rules.settings.autoSelect,
    intents: ws.rules.catalogue.intents.map((i) => ({ id: i.id, name: i.name, status: i.status, owned_scope: i.ownedScope, selected: sel?.intent === i.id })),
    problems: [
      ...ruleFileProblems(ws.rules, ws.texts).map(({ file, line, column, severity, message }) => ({ file, line, column, severity, message })),
      ...selectionProblems(files.damage.workspace),
    ],
    sessions: sessions
      .filter((s) => isLiveSession(s, now))
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((s) => ({
        id: s.id,
        client: s.client,
        intent: s.intent ?? null,
        heartbeat: s.heartbeat,
        working_on: s.workingOn ?? [],
        unsaved: s.dirtyFiles ?? [],
        held: s.held ?? null,
      })),
  };
}

/** The report's text from outside (ids, names, paths, messages) as one line each. */
function escaped(r: StatusReport): StatusReport {
  const list = (xs: string[]) => xs.map(oneLine);
  return {
    ...r,
    root: oneLine(r.root),
    selection: r.selection && { intent: oneLine(r.selection.intent), by: oneLine(r.selection.by), at: r.selection.at },
    intents: r.intents.map((i) => ({ ...i, id: oneLine(i.id), name: oneLine(i.name), status: oneLine(i.status), owned_scope: list(i.owned_scope) })),
    problems: r.problems.map((p) => ({ ...p, file: oneLine(p.file), message: oneLine(p.message) })),
    sessions: r.sessions.map((s) => ({
      ...s,
      id: oneLine(s.id),
      client: oneLine(s.client),
      intent: s.intent === null ? null : oneLine(s.intent),
      working_on: list(s.working_on),
      unsaved: list(s.unsaved),
    })),
  };
}

function statusText(raw: StatusReport, now: number): string {
  const r = escaped(raw);
  const out = [`Workspace: ${r.root}`];
  if (r.selection) {
    const intent = r.intents.find((i) => i.id === r.selection!.intent);
    out.push(
      `Selection: ${r.selection.intent}${intent ? ` — ${intent.name}` : " (not in active_intents.yaml)"} (workspace, by ${r.selection.by}, ${relativeTime(r.selection.at, now)})`,
    );
  } else if (r.problems.some((p) => p.file === `${SESSIONS_DIR}/${WORKSPACE_SELECTION}`)) {
    out.push(`Selection: unknown — ${SESSIONS_DIR}/${WORKSPACE_SELECTION} cannot be read (see Problems); select again with \`intent select ID\``);
  } else {
    out.push(
      r.autoSelect
        ? "Selection: none — auto-selection (an edit counts under the only IN_PROGRESS intent that owns its file)"
        : "Selection: none, and auto-selection is off: select an intent before editing",
    );
  }
  out.push("", "Intents:");
  if (!r.intents.length) out.push("  (none)");
  const idWidth = Math.max(0, ...r.intents.map((i) => i.id.length));
  const nameWidth = Math.max(0, ...r.intents.map((i) => i.name.length));
  for (const i of r.intents) {
    out.push(`  ${i.selected ? "*" : " "} ${i.id.padEnd(idWidth)}  ${i.status.padEnd(11)}  ${i.name.padEnd(nameWidth)}  ${i.owned_scope.join(", ")}`);
  }
  for (const file of new Set(r.problems.map((p) => p.file))) {
    out.push("", `Problems in ${file}:`);
    for (const p of r.problems.filter((q) => q.file === file)) out.push(`  ${p.file}:${p.line}:${p.column}: ${p.severity}: ${p.message}`);
  }
  out.push("", "Live sessions:");
  if (!r.sessions.length) out.push("  (none)");
  for (const s of r.sessions) {
    const working = s.working_on.length ? `  · working on ${s.working_on.join(", ")}` : "";
    const unsaved = s.unsaved.length ? `  · unsaved: ${s.unsaved.join(", ")}` : "";
    out.push(
      `  ${s.id}  ${s.client}  ${s.intent ? `own selection ${s.intent}` : "follows the workspace"}${working}${unsaved}  · seen ${relativeTime(s.heartbeat, now)}`,
    );
    if (s.held) out.push(`    held: a command of it changed the rules unasked (${s.held}); its writes are denied until \`intent select ID --session ${s.id}\``);
  }
  return `${out.join("\n")}\n`;
}

const OPTIONS = { ...ROOT_OPTION, json: { type: "boolean" } } as const satisfies Options;

export const statusCommand: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv, io) {
    const { values, positionals } = parse("status", argv, OPTIONS, { min: 0, max: 1 });
    const ws = openWorkspace(io, values.root, { requireIntents: true });
    if (positionals[0] !== undefined) {
      const one = await intentStatusReport(ws, positionals[0]);
      io.out(values.json ? `${JSON.stringify(intentStatusJson(one), null, 2)}\n` : intentStatusText(one));
      return 0;
    }
    const now = Date.now();
    const report = statusReport(ws, listSessions(ws.root), now);
    io.out(values.json ? `${JSON.stringify(report, null, 2)}\n` : statusText(report, now));
    return 0;
  },
};
