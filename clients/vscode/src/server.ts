// Talking to the server: the commands it offers, with their answers typed, and errors turned into what a
// user can read.
import { ExecuteCommandRequest, type LanguageClient } from "vscode-languageclient/node";
import { Commands, type ActiveIntentResult, type ReportResult, type RevertResult } from "@shared/commands";

/** One row of `intent.listIntents`. */
export interface IntentRow {
  id: string;
  name: string;
  status: string;
  owned_scope: string[];
  selected: boolean;
  files: string[];
  transitions: string[];
  /** How the intent pickers offer it (the server decides, so every editor lists the same); null: not offered. */
  selectAs: "select" | "start" | "resume" | null;
}

export interface BlameRow {
  line: number;
  kind: string;
  intent?: string;
  contributor?: string;
  model?: string;
  person?: string;
  outOfScope?: boolean;
  timestamp?: string;
  traceId?: string;
  /** Who git says wrote a line kept from before the adoption point (kind "beforeAdoption"). */
  git?: { name: string; date: string; commit: string };
}

export interface ServerCommands {
  listIntents(uri?: string): Promise<IntentRow[]>;
  activeIntent(uri?: string): Promise<ActiveIntentResult>;
  select(id: string, start: boolean, uri?: string): Promise<unknown>;
  clear(uri?: string): Promise<unknown>;
  transition(id: string, to: string, uri?: string): Promise<unknown>;
  showContext(id: string | undefined, uri?: string): Promise<{ id: string; xml: string; bytes: number; omitted: unknown }>;
  blame(uri: string, startLine: number, endLine: number): Promise<{ path: string; lines: BlameRow[] }>;
  verifyLedger(uri?: string): Promise<{ path: string; ok: boolean; records: number; problems: { line: number; kind: string; message: string }[] }>;
  regenerateMap(uri?: string): Promise<{ path: string; changed: boolean; intents: number }>;
  report(uri?: string): Promise<ReportResult>;
  /** `intent revert --intent ID --json`; with `apply`, `--apply`. */
  revert(intent: string, apply: boolean, uri?: string): Promise<RevertResult>;
}

export function serverCommands(client: LanguageClient): ServerCommands {
  const run = <T>(command: string, args: Record<string, unknown>): Promise<T> =>
    // quiet: the extension shows every answer in its own UI; the server's window/showMessage would repeat it
    client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [{ ...args, quiet: true }] }) as Promise<T>;
  const at = (uri?: string) => (uri ? { uri } : {});
  return {
    listIntents: (uri) => run(Commands.listIntents, at(uri)),
    activeIntent: (uri) => run(Commands.activeIntent, at(uri)),
    select: (id, start, uri) => run(Commands.selectIntent, { ...at(uri), id, ...(start ? { start: true } : {}) }),
    clear: (uri) => run(Commands.clearIntent, at(uri)),
    transition: (id, to, uri) => run(Commands.transition, { ...at(uri), id, to }),
    showContext: (id, uri) => run(Commands.showContext, { ...at(uri), ...(id ? { id } : {}) }),
    blame: (uri, startLine, endLine) => run(Commands.blame, { uri, startLine, endLine }),
    verifyLedger: (uri) => run(Commands.verifyLedger, at(uri)),
    regenerateMap: (uri) => run(Commands.regenerateMap, at(uri)),
    report: (uri) => run(Commands.report, { ...at(uri), html: true }),
    revert: (intent, apply, uri) => run(Commands.revert, { ...at(uri), intent, ...(apply ? { apply: true } : {}) }),
  };
}

/** The server's error message (it says what to do next), without JSON-RPC's wrapping. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
