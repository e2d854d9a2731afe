import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { afterEach, beforeEach, vi } from "vitest";

/**
 * The scene of a hook service run in the test's own process: a private folder (mode 0700, as the launcher
 * makes one) for its socket, fresh for each test, and `process.exit` intercepted, so that the service's
 * leaving is recorded in `exits` instead of ending the test run. Called at a test file's top level; a file's
 * own `afterEach` runs before this one's (vitest runs them in reverse), so it may still use the folder.
 */
export function serviceScene(prefix: string): { readonly dir: string; readonly exits: number[] } {
  const scene = { dir: "", exits: [] as number[] };
  beforeEach(() => {
    scene.dir = mkdtempSync(prefix);
    chmodSync(scene.dir, 0o700);
    scene.exits = [];
    vi.spyOn(process, "exit").mockImplementation(((code?: number) => {
      scene.exits.push(code ?? 0);
    }) as never);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    rmSync(scene.dir, { recursive: true, force: true });
  });
  return scene;
}
