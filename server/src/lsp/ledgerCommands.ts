import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ErrorCodes, ResponseError } from "vscode-languageserver";
import { Commands } from "@shared/commands";
import { writeFileAtomic } from "../engine/atomicWrite";
import { attribute } from "../engine/attribution";
import { gatherIntentContext } from "../engine/contextSources";
import { renderIntentMap } from "../engine/intentMap";
import { verifyLedger } from "../engine/ledger/verify";
import { INTENT_MAP_FILE, readOptional } from "../engine/workspaceFiles";
import type { CommandHandler } from "./commands";
import type { LineOwner } from "./documents";

/** Commands over the ledger (DESIGN §4): blame, regenerateMap, verifyLedger, showContext. */

export interface BlameLine {
  /** 1-based. */
  line: number;
  kind: "traced" | "edited" | "untraced";
  intent?: string;
  contributor?: string;
  model?: string;
  timestamp?: string;
  traceId?: string;
  exact?: boolean;
}

function blameLine(line: number, owner: LineOwner): BlameLine {
  if (owner.kind !== "traced") return { line, kind: owner.kind };
  const { entry, exact } = owner.attribution;
  return {
    line,
    kind: "traced",
    intent: entry.intentId,
    contributor: entry.contributor.type,
    model: entry.contributor.modelId,
    timestamp: entry.timestamp,
    traceId: entry.recordId,
    exact,
  };
}

const blame: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  const doc = typeof args.uri === "string" ? host.document(args.uri) : undefined;
  const path = doc?.path ?? (typeof args.path === "string" ? args.path : undefined);
  if (!path) throw new ResponseError(ErrorCodes.InvalidParams, `Missing argument "uri" or "path" (for example {"path":"src/api/weather.ts","startLine":0,"endLine":10}).`);
  let owners: (line: number) => LineOwner;
  let count: number;
  if (doc) {
    owners = (l) => doc.owner(l);
    count = doc.doc.lineCount;
  } else {
    const text = readOptional(join(ctx.root, path));
    if (text === undefined) throw new ResponseError(ErrorCodes.InvalidParams, `${path} does not exist in the workspace.`);
    const lines = text.split(/\r?\n/);
    const attributions = attribute(ctx.ledger.entriesFor(path), lines);
    owners = (l) => (attributions[l] ? { kind: "traced", attribution: attributions[l]! } : { kind: "untraced" });
    count = lines.length;
  }
  // 0-based and inclusive, as LSP positions are; the whole file when absent
  const start = Math.max(0, typeof args.startLine === "number" ? args.startLine : 0);
  const end = Math.min(count - 1, typeof args.endLine === "number" ? args.endLine : count - 1);
  const out: BlameLine[] = [];
  for (let l = start; l <= end; l++) out.push(blameLine(l + 1, owners(l)));
  return { path, lines: out };
};

const regenerateMap: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  await ctx.ledger.poll();
  const text = renderIntentMap(ctx.rules.catalogue, ctx.ledger);
  const changed = readOptional(join(ctx.root, INTENT_MAP_FILE)) !== text;
  if (changed) writeFileAtomic(join(ctx.root, INTENT_MAP_FILE), text);
  return { path: INTENT_MAP_FILE, changed, intents: ctx.rules.catalogue.intents.length };
};

const verifyLedgerCommand: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  const file = ctx.ledger.file;
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return { path: ctx.ledger.ledgerPath, ok: true, records: 0, problems: [] };
  }
  return { path: ctx.ledger.ledgerPath, ...verifyLedger(bytes) };
};

const showContext: CommandHandler = async (host, args) => {
  const ctx = host.context(args);
  const id = typeof args.id === "string" ? args.id : ctx.selection?.intentId;
  if (!id) throw new ResponseError(ErrorCodes.InvalidParams, `Missing argument "id" (for example {"id":"INT-001"}), and no intent is selected.`);
  const intent = ctx.rules.catalogue.byId.get(id);
  if (!intent) throw new ResponseError(ErrorCodes.InvalidParams, `No intent ${id} in active_intents.yaml.`);
  await ctx.ledger.poll();
  const result = gatherIntentContext(ctx.root, ctx.rules, ctx.ledger, intent, typeof args.budget === "number" ? args.budget : undefined);
  return { id, xml: result.xml, bytes: result.bytes, omitted: result.omitted };
};

export const ledgerCommands: Partial<Record<string, CommandHandler>> = {
  [Commands.showContext]: showContext,
  [Commands.blame]: blame,
  [Commands.regenerateMap]: regenerateMap,
  [Commands.verifyLedger]: verifyLedgerCommand,
};
