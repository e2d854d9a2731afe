/**
 * An intent's lifecycle move as every door makes it: the status written into active_intents.yaml (comments
 * and layout kept, refused when the file changed since it was read), then one lifecycle record appended to
 * the ledger with the commit it was made at and, for COMPLETE, what was verified (docs/LEDGER.md).
 */
import type { PersonMetadata, VerificationMetadata } from "@shared/agentTrace";
import { buildLifecycleRecord, lifecycleEvents, type LifecycleEvent } from "../../engine/ledger/lifecycle";
import type { IntentStatus } from "../../engine/intents/model";
import { transition } from "../../engine/intents/writeback";
import { INTENT_LSP_VERSION } from "../../version";
import { headRevision } from "../git";
import { appendWorkspaceRecord } from "../ledger/append";
import { closeSync, fstatSync, readSync } from "node:fs";
import { ownFilePath, readOwnFile } from "../ownFiles";
import { openRegularSync } from "../regularFiles";
import { modifyIntentsFile } from "./store";

export interface MoveRequest {
  root: string;
  ledgerPath: string;
  /** The intents file's text the caller judged the move on; the move is refused if it changed since. */
  basedOn: string | undefined;
  intentId: string;
  from: IntentStatus;
  to: IntentStatus;
  person?: PersonMetadata;
  verification?: VerificationMetadata;
  now?: Date;
}

/** `recorded` false: the status was written but the ledger refused the record (`warning` says why). */
export type MoveResult =
  | { ok: true; text: string; recorded: true }
  | { ok: true; text: string; recorded: false; warning: string }
  | { ok: false; reason: string };

export async function moveIntent(req: MoveRequest): Promise<MoveResult> {
  const now = req.now ?? new Date();
  const written = await modifyIntentsFile(req.root, req.basedOn, (text) => transition(text, req.intentId, req.to, now));
  if (!written.ok) return written;
  const record = buildLifecycleRecord({
    intentId: req.intentId,
    from: req.from,
    to: req.to,
    revision: headRevision(req.root),
    person: req.person,
    verification: req.verification,
    toolVersion: INTENT_LSP_VERSION,
    now,
  });
  try {
    await appendWorkspaceRecord(req.root, req.ledgerPath, record);
    return { ok: true, text: written.text, recorded: true };
  } catch (err) {
    return {
      ok: true,
      text: written.text,
      recorded: false,
      warning: `${req.intentId} moved to ${req.to}, but its lifecycle record could not be appended to the ledger (${(err as Error).message}); the move is in active_intents.yaml only.`,
    };
  }
}

/** Every lifecycle move in the workspace's ledger, oldest first (none when there is no ledger). */
export function readLifecycleEvents(root: string, ledgerPath: string): LifecycleEvent[] {
  const text = readOwnFile(root, ledgerPath) ?? "";
  return lifecycleEvents(text.split("\n"));
}

/**
 * The lifecycle moves of a ledger followed as it grows (the editor asks after every append): only the bytes
 * appended since the last read are read and parsed; a ledger that shrank or was replaced is read again whole.
 */
export class LifecycleLog {
  private offset = 0;
  private head = "";
  private events: LifecycleEvent[] = [];

  constructor(
    private readonly root: string,
    private readonly ledgerPath: () => string,
  ) {}

  read(): LifecycleEvent[] {
    let fd: number | undefined;
    try {
      fd = openRegularSync(ownFilePath(this.root, this.ledgerPath()));
      const size = fstatSync(fd).size;
      const head = readAt(fd, 0, Math.min(size, 256));
      if (size < this.offset || !head.startsWith(this.head)) this.reset();
      // up to the last complete line: a line being appended is read when it is whole
      const text = readAt(fd, this.offset, size - this.offset);
      const end = text.lastIndexOf("\n") + 1;
      if (end > 0) {
        this.events.push(...lifecycleEvents(text.slice(0, end).split("\n")));
        this.offset += Buffer.byteLength(text.slice(0, end));
      }
      this.head = head;
    } catch {
      this.reset(); // no ledger (yet), or one that cannot be read safely: no moves to report
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    return this.events;
  }

  private reset(): void {
    this.offset = 0;
    this.head = "";
    this.events = [];
  }
}

function readAt(fd: number, position: number, length: number): string {
  const buf = Buffer.alloc(length);
  const n = length ? readSync(fd, buf, 0, length, position) : 0;
  return buf.subarray(0, n).toString("utf8");
}
