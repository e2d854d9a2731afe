import { watch, type FSWatcher } from "node:fs";
import { dirname, join } from "node:path";
import { ORCHESTRATION_DIR, SESSIONS_DIR } from "../engine/workspaceFiles";
import { REFERENCE_LEDGER } from "./ledger/workspaceLedger";

/** Coalesces bursts of file events (an atomic rename fires several) into one callback. */
const SETTLE_MS = 30;
const REARM_MS = 1000;

/**
 * The server's own file watching, whatever the client does: Neovim 0.10 on Linux, eglot and Helix register
 * no watchers (Helix 25.01 says it does and sends nothing), so `intent select` in a terminal, an agent's
 * write to an open file or a hand edit of the YAML would go unnoticed. It watches directories, not the
 * tree: each workspace's root, `.orchestration/`, `.orchestration/.sessions/`, the ledgers' folders, and
 * the folders of open documents (a write by rename replaces the file, so the file itself cannot be
 * watched). A handful of inotify watches; events a client also sends are simply seen twice.
 */
export class FileWatcher {
  /** Watched directory: how many reasons there are to watch it, and its watcher (absent while it does not exist). */
  private readonly dirs = new Map<string, { refs: number; watcher: FSWatcher | undefined }>();
  private readonly changed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private rearmTimer: NodeJS.Timeout | undefined;

  constructor(private readonly onChange: (paths: string[]) => void) {}

  /** The folders that matter in every workspace: its root, `.orchestration/` and the sessions, the ledgers'. */
  watch(root: string, ledgerPath?: string): void {
    for (const dir of workspaceDirs(root, ledgerPath)) this.add(dir);
  }

  unwatch(root: string, ledgerPath?: string): void {
    for (const dir of workspaceDirs(root, ledgerPath)) this.remove(dir);
  }

  /** An open document's folder. */
  watchFile(fsPath: string | undefined): void {
    if (fsPath) this.add(dirname(fsPath));
  }

  unwatchFile(fsPath: string | undefined): void {
    if (fsPath) this.remove(dirname(fsPath));
  }

  private add(dir: string): void {
    const known = this.dirs.get(dir);
    if (known) {
      known.refs++;
      return;
    }
    this.dirs.set(dir, { refs: 1, watcher: this.open(dir) });
  }

  private remove(dir: string): void {
    const known = this.dirs.get(dir);
    if (!known) return;
    if (--known.refs > 0) return;
    known.watcher?.close();
    this.dirs.delete(dir);
  }

  private open(dir: string): FSWatcher | undefined {
    try {
      const w = watch(dir, { persistent: false }, (_event, name) => this.note(name ? join(dir, name.toString()) : dir));
      // the directory went away (git checkout, rm -r): close, and re-arm once the dust settles
      w.on("error", () => {
        w.close();
        const known = this.dirs.get(dir);
        if (known?.watcher === w) known.watcher = undefined;
        this.scheduleRearm();
      });
      return w;
    } catch {
      return undefined; // does not exist (yet): an event in its parent, or the re-arm timer, tries again
    }
  }

  private note(path: string): void {
    this.changed.add(path);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const paths = [...this.changed];
      this.changed.clear();
      this.rearm(); // .orchestration or .sessions may have been created since
      this.onChange(paths);
    }, SETTLE_MS);
  }

  private scheduleRearm(): void {
    clearTimeout(this.rearmTimer);
    this.rearmTimer = setTimeout(() => this.rearm(), REARM_MS);
    this.rearmTimer.unref();
  }

  private rearm(): void {
    for (const [dir, known] of this.dirs) if (!known.watcher) known.watcher = this.open(dir);
  }

  dispose(): void {
    clearTimeout(this.timer);
    clearTimeout(this.rearmTimer);
    for (const known of this.dirs.values()) known.watcher?.close();
    this.dirs.clear();
  }
}

function workspaceDirs(root: string, ledgerPath: string | undefined): string[] {
  const dirs = new Set([root, join(root, ORCHESTRATION_DIR), join(root, SESSIONS_DIR), dirname(join(root, REFERENCE_LEDGER))]);
  if (ledgerPath) dirs.add(dirname(join(root, ledgerPath)));
  return [...dirs];
}
