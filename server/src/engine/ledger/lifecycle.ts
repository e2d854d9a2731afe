/**
 * Lifecycle records (docs/LEDGER.md "Lifecycle records"): an intent's move, kept in the ledger with the
 * commit it was made at and, for a move to COMPLETE, what was verified. They claim no lines (`files` is
 * empty), so attribution never sees them; drift and `intent status ID` read them back.
 */
import { randomUUID } from "node:crypto";
import {
  AGENT_TRACE_VERSION,
  METADATA_KEY,
  TOOL_NAME,
  type IntentLspMetadata,
  type LifecycleMetadata,
  type PersonMetadata,
  type TraceRecord,
  type VerificationMetadata,
} from "@shared/agentTrace";
import { INTENT_STATUSES, type IntentStatus } from "../intents/model";

export interface LifecycleInput {
  intentId: string;
  from: IntentStatus;
  to: IntentStatus;
  revision?: string;
  person?: PersonMetadata;
  verification?: VerificationMetadata;
  toolVersion: string;
  now?: Date;
  id?: string;
}

export function buildLifecycleRecord(input: LifecycleInput): TraceRecord {
  const lifecycle: LifecycleMetadata = { from: input.from, to: input.to, ...(input.verification ? { verification: input.verification } : {}) };
  const ours: IntentLspMetadata = {
    intent_id: input.intentId,
    mutation_class: "CONFIGURATION",
    pre_hash: null,
    post_hash: null,
    scope: "EXEMPT",
    ...(input.person ? { person: input.person } : {}),
    lifecycle,
  };
  return {
    version: AGENT_TRACE_VERSION,
    id: input.id ?? randomUUID(),
    timestamp: (input.now ?? new Date()).toISOString(),
    ...(input.revision ? { vcs: { type: "git", revision: input.revision } } : {}),
    tool: { name: TOOL_NAME, version: input.toolVersion },
    files: [],
    metadata: { [METADATA_KEY]: ours },
  };
}

/** One move as read back from the ledger. */
export interface LifecycleEvent {
  intentId: string;
  from: IntentStatus;
  to: IntentStatus;
  at: string;
  revision?: string;
  person?: PersonMetadata;
  verification?: VerificationMetadata;
}

// biome-ignore lint/suspicious/noExplicitAny: records are untyped JSON read field by field, each checked where it is read
const isObject = (v: unknown): v is Record<string, any> => typeof v === "object" && v !== null && !Array.isArray(v);
const isStatus = (v: unknown): v is IntentStatus => typeof v === "string" && (INTENT_STATUSES as readonly string[]).includes(v);

/**
 * The lifecycle events among ledger lines, in ledger order. A line that is not a lifecycle record (or not
 * JSON) is none: the lenient reader reports unreadable lines, this only picks out moves.
 */
export function lifecycleEvents(lines: Iterable<string>): LifecycleEvent[] {
  const out: LifecycleEvent[] = [];
  for (const line of lines) {
    if (!line.includes('"lifecycle"')) continue; // most lines are not moves: skip parsing them
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObject(obj) || !isObject(obj["metadata"])) continue;
    const ours = obj["metadata"][METADATA_KEY];
    if (!isObject(ours) || !isObject(ours["lifecycle"]) || typeof ours["intent_id"] !== "string") continue;
    const { from, to, verification } = ours["lifecycle"];
    if (!isStatus(from) || !isStatus(to) || typeof obj["timestamp"] !== "string") continue;
    const revision = isObject(obj["vcs"]) && typeof obj["vcs"]["revision"] === "string" ? obj["vcs"]["revision"] : undefined;
    out.push({
      intentId: ours["intent_id"],
      from,
      to,
      at: obj["timestamp"],
      ...(revision ? { revision } : {}),
      ...(isObject(ours["person"]) ? { person: ours["person"] as PersonMetadata } : {}),
      ...(isObject(verification) && Array.isArray(verification["criteria"]) ? { verification: verification as VerificationMetadata } : {}),
    });
  }
  return out;
}

/** The newest move of `intentId` into `to` (its last start, its completion), if the ledger has one. */
export function lastMove(events: readonly LifecycleEvent[], intentId: string, to: IntentStatus): LifecycleEvent | undefined {
  for (let i = events.length - 1; i >= 0; i--) if (events[i]!.intentId === intentId && events[i]!.to === to) return events[i];
  return undefined;
}
