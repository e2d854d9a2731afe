import { join } from "node:path";
import type { ChunkSummary } from "../../engine/ledger/chunkSummary";
import { LedgerIndex } from "../../engine/ledger/ledgerIndex";
import { FileRecordLines } from "./fileRecordLines";
import { type FollowerOptions, LedgerFollower } from "./follow";
import { CACHE_DIR } from "../cacheDir";
import { removeOwnFile } from "../ownFiles";
import { CHECK_BYTES, indexFileName, loadIndex, saveIndexInSteps } from "./indexFile";

export interface LedgerSourceOptions {
  /** The workspace's cache folder, created when asked (undefined: no saved index is read or written). */
  cacheDir: (create: boolean) => string | undefined;
  /** Read of the saved index only what queries ask for (see WorkspaceLedgerOptions.partial). */
  partial: boolean;
  /** The files whose records lines just read touched. */
  onPaths: (paths: Iterable<string>) => void;
  /** The file was replaced or cut: its index starts again. */
  onReset: () => void;
  /** Summarizes chunks of a large read in other threads (FollowerOptions.summarizer). */
  summarizer?: FollowerOptions["summarizer"];
}

/** A part of settling an index: true when it has more to do, in a later turn. */
export type SettleStep = () => boolean;

/**
 * One ledger file followed as it grows, with its index and the saved copy of that index: the first and
 * last bytes indexed tie a saved index to the file it describes (io/ledger/indexFile.ts), so the next
 * process resumes where this one stopped instead of reading the whole file again.
 */
export class LedgerSource {
  readonly index: LedgerIndex;
  readonly follower: LedgerFollower;
  /** The ledger's first bytes and the last indexed ones. */
  private head: Buffer = Buffer.alloc(0);
  private tail: Buffer = Buffer.alloc(0);
  /** Offset up to which the saved index (loaded or written) describes the ledger. */
  private saved = 0;
  private loadTried = false;

  constructor(
    private readonly root: string,
    /** Workspace-relative path of the ledger file. */
    readonly path: string,
    private readonly opts: LedgerSourceOptions,
  ) {
    const file = join(root, path);
    this.index = new LedgerIndex(
      new FileRecordLines(
        file,
        () => this.follower?.fileIdentity,
        () => this.follower?.notAsIndexed(),
        () => this.dropSaved(),
      ),
    );
    this.follower = new LedgerFollower(
      file,
      {
        ingestBytes: (chunk: Buffer, offset: number, first: number, summary?: ChunkSummary) => {
          if (offset < CHECK_BYTES) this.head = Buffer.concat([this.head, chunk.subarray(0, CHECK_BYTES - offset)]);
          this.tail = lastBytes(this.tail, chunk);
          opts.onPaths(this.index.ingestBytes(chunk, offset, first, summary).paths);
        },
        reset: () => {
          this.index.reset();
          this.head = Buffer.alloc(0);
          this.tail = Buffer.alloc(0);
          this.saved = 0;
          opts.onReset();
        },
      },
      opts.summarizer ? { summarizer: opts.summarizer } : {},
    );
  }

  /** Bytes indexed since the index was last saved or loaded. */
  get unsavedBytes(): number {
    return this.follower.offset - this.saved;
  }

  /** The first time only: starts from the saved index when it still describes the ledger; the bytes it covers. */
  async loadSavedOnce(): Promise<number> {
    if (this.loadTried) return 0;
    this.loadTried = true;
    const dir = this.opts.cacheDir(false);
    if (!dir) return 0;
    const loaded = await loadIndex(dir, this.path, join(this.root, this.path), { partial: this.opts.partial });
    if ("problem" in loaded) return 0;
    this.index.restore(loaded.state);
    this.follower.resume(loaded.at.indexed, loaded.at.nextLine, loaded.identity, loaded.at.tail);
    this.head = loaded.at.head;
    this.tail = loaded.at.tail;
    this.saved = loaded.at.indexed;
    return loaded.at.indexed;
  }

  /**
   * Saves the index when `saveAfterBytes` were indexed since it was saved, and, for a reader that holds the
   * whole ledger, has its pin index made: `"steps"` here, so that the pass is not paid by the first hover that
   * asks (the editor); `"first-question"` when something first asks (a command line); `"none"`: a reader of
   * a few files answers its few questions by scanning. As steps, for a caller that runs each in turns of its
   * own so that the editor answers in between: the save, then the pin index, a slice at a time. A step is
   * run again while it returns true.
   */
  settleSteps(saveAfterBytes: number, pins: "steps" | "first-question" | "none"): SettleStep[] {
    let saving: Generator<void> | undefined;
    const save = () => {
      if (!saving && this.unsavedBytes < saveAfterBytes) return false;
      saving ??= this.saveInSteps();
      if (!saving.next().done) return true;
      saving = undefined;
      return false;
    };
    if (pins === "first-question") this.index.pinsAtFirstQuestion();
    return pins === "steps" ? [save, () => this.index.preparePinsStep()] : [save];
  }

  /**
   * The saved index is damaged: removed, so that no process builds on it again (the next reads the ledger
   * whole and saves it anew), and this one indexes the ledger anew at its next read.
   */
  private dropSaved(): void {
    this.follower.notAsIndexed();
    this.saved = 0;
    try {
      removeOwnFile(this.root, `${CACHE_DIR}/${indexFileName(this.path)}`);
    } catch {
      /* not ours to remove, or gone: the next process finds its checksum wrong as this one did */
    }
  }

  save(): void {
    for (const _ of this.saveInSteps(Number.POSITIVE_INFINITY));
  }

  /** `save` a slice of the rows at a time (indexFile.ts saveIndexInSteps); the index must not change meanwhile. */
  private *saveInSteps(rowsPerStep?: number): Generator<void> {
    const dir = this.opts.cacheDir(true);
    if (!dir) return;
    const at = { ledger: this.path, indexed: this.follower.offset, nextLine: this.follower.nextLine, head: this.head, tail: this.tail };
    if (yield* saveIndexInSteps(this.root, () => this.index.state(), at, rowsPerStep)) this.saved = at.indexed;
  }
}

/** The last CHECK_BYTES of `before` followed by `chunk`. */
function lastBytes(before: Buffer, chunk: Buffer): Buffer {
  if (chunk.length >= CHECK_BYTES) return Buffer.from(chunk.subarray(chunk.length - CHECK_BYTES));
  const joined = Buffer.concat([before, chunk]);
  return joined.length > CHECK_BYTES ? joined.subarray(joined.length - CHECK_BYTES) : joined;
}
