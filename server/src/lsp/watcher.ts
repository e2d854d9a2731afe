import { watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import { ORCHESTRATION_DIR, SESSIONS_DIR } from "../engine/workspaceFiles";

/** Coalesces bursts of file events (an atomic rename fires several) into one callback. */
const SETTLE_MS = 60;
const REARM_MS = 1000;

/**
 * Server-side watching for clients that cannot register file watchers. Watches only the directories
 * that hold rule and session files, never the whole tree, so it costs a handful of inotify watches.
 */
export class FallbackWatcher {
  private readonly watchers = new Map<string, FSWatcher[]>();
  private readonly changed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly onChange: (paths: string[]) => void) {}

  watch(root: string): void {
    if (this.watchers.has(root)) return;
    const dirs = [root, join(root, ORCHESTRATION_DIR), join(root, SESSIONS_DIR)];
    const list: FSWatcher[] = [];
    for (const dir of dirs) {
      try {
        const w = watch(dir, { persistent: false }, (_event, name) => name && this.note(join(dir, name.toString())));
        // the directory went away (git checkout, rm -r): close, and re-arm once the dust settles
        w.on("error", () => {
          w.close();
          setTimeout(() => this.rearm(root), REARM_MS).unref();
        });
        list.push(w);
      } catch {
        /* the directory does not exist (yet); the root watcher sees it appear and we re-arm below */
      }
    }
    this.watchers.set(root, list);
  }

  unwatch(root: string): void {
    for (const w of this.watchers.get(root) ?? []) w.close();
    this.watchers.delete(root);
  }

  private note(path: string): void {
    this.changed.add(path);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const paths = [...this.changed];
      this.changed.clear();
      // .orchestration or .sessions may have been created since we started: re-arm missing watchers
      for (const root of [...this.watchers.keys()]) if (this.watchers.get(root)!.length < 3) this.rearm(root);
      this.onChange(paths);
    }, SETTLE_MS);
  }

  private rearm(root: string): void {
    if (!this.watchers.has(root)) return; // unwatched meanwhile
    this.unwatch(root);
    this.watch(root);
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const root of [...this.watchers.keys()]) this.unwatch(root);
  }
}
