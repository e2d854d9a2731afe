import { readDiskState, readDiskStateAsync, type DiskState } from "../io/diskState";
import type { DocumentBaseline } from "./documentBaseline";
import type { TextBuffer } from "./textBuffer";

/**
 * What an open document's file holds on disk, as last looked at, and whether that content came from another
 * writer: content the buffer or its baseline already holds is this editor's own save.
 */
export class DocumentDisk {
  private disk: DiskState | undefined;
  private diskIsExternal = false;

  /**
   * `fsPath`: the file on disk, or undefined for an untitled or non-file document (never looked at).
   * `looked`: the file as the caller read it a moment ago (the open's own look), so it is not read twice.
   */
  constructor(
    readonly fsPath: string | undefined,
    private readonly buffer: TextBuffer,
    private readonly baseline: DocumentBaseline,
    looked?: DiskState,
  ) {
    if (fsPath) this.took(looked ?? readDiskState(fsPath, undefined));
  }

  /** The text on disk, as last looked at (undefined: missing or unreadable). */
  get text(): string | undefined {
    return this.disk?.text;
  }

  /** Whether the content on disk came from someone else (and the buffer has not taken it yet). */
  get external(): boolean {
    return this.diskIsExternal;
  }

  /** The buffer took the content on disk (a reload): it is no longer someone else's news. */
  taken(): void {
    this.diskIsExternal = false;
  }

  /**
   * Whether the buffer is the file on disk (looked at now), unchanged since its baseline: then nothing in it
   * is this editor's to carry forward, and the ledger alone says who wrote each line.
   */
  holdsBaseline(): boolean {
    this.look();
    const disk = this.text;
    return disk !== undefined && disk === this.baseline.text && this.buffer.length === disk.length && this.buffer.getText() === disk;
  }

  /** Re-reads the file's stat (and its text if that changed); cheap enough for every change notification. */
  look(): void {
    if (!this.fsPath) return;
    this.took(readDiskState(this.fsPath, this.disk));
  }

  /**
   * `look` without blocking (a file written underneath, a save): the read of a large file does not hold up
   * other requests. A look taken meanwhile (a keystroke's) is as new, and stands.
   */
  async lookAsync(): Promise<void> {
    if (!this.fsPath) return;
    const from = this.disk;
    const next = await readDiskStateAsync(this.fsPath, from);
    if (this.disk === from) this.took(next);
  }

  private took(next: DiskState): void {
    if (next === this.disk) return;
    this.disk = next;
    // Content the buffer already holds is this editor's own save; anything else came from another writer.
    this.diskIsExternal = next.text !== undefined && next.text !== this.baseline.text && next.text !== this.buffer.getText();
  }
}
