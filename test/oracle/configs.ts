import type { SeedConfig } from "./seededRun";

/** The two sizes the oracle runs at: bounded in `npm test`, large in `npm run test:replay`. */

export interface SeededSize {
  seeds: number;
  steps: number;
  files: SeedConfig["files"];
  pasteLines: [number, number];
  maxLines: number;
  blameEvery: number;
  /** A file-level step (rename, move, copy, rebase, squash merge) every this many steps, kinds in turn. */
  fileOpEvery: number;
  /** An agent's refactor across files (split, extraction, merge) every this many steps, kinds in turn; 0: none. */
  refactorEvery: number;
}

export const NPM_TEST: SeededSize = {
  seeds: 2,
  steps: 45,
  files: [
    { path: "src/engine/core.ts", lines: 120, weight: 3 },
    { path: "src/engine/util.ts", lines: 30, weight: 2 },
  ],
  pasteLines: [60, 150],
  maxLines: 500,
  blameEvery: 10,
  // every kind of file-level step in each seed: steps 6, 11, …, 41
  fileOpEvery: 5,
  refactorEvery: 0,
};

export const REPLAY_SEEDED: SeededSize = {
  seeds: 20,
  steps: 200,
  files: [
    { path: "src/engine/core.ts", lines: 220, weight: 3 },
    { path: "src/engine/util.ts", lines: 40, weight: 2 },
  ],
  pasteLines: [100, 300],
  maxLines: 1000,
  blameEvery: 10,
  fileOpEvery: 10,
  refactorEvery: 10,
};

export function seededConfig(
  size: SeededSize,
  seed: number,
  steps = size.steps,
  log?: (s: string) => void,
  trace?: (s: string) => void,
  refactorEvery = size.refactorEvery,
): SeedConfig {
  return {
    seed,
    steps,
    files: size.files,
    pasteLines: size.pasteLines,
    maxLines: size.maxLines,
    blameEvery: size.blameEvery,
    fileOpEvery: size.fileOpEvery,
    refactorEvery,
    ...(log ? { log } : {}),
    ...(trace ? { trace } : {}),
  };
}
