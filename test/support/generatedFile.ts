import { git } from "./gitRepository";
import type { TempWorkspace } from "./workspace";

/** Line `i` of a generated file; `sign` "-" rewrites it. */
const generatedLine = (i: number, sign: "" | "-") => `export const g${i} = ${sign}${i};\n`;

/**
 * A generated file of `lines` lines committed at `path`, then rewritten on disk on every other line (the
 * second, fourth, …): git counts `lines / 2` changed runs in it.
 */
export function commitThenRewriteEveryOtherLine(ws: TempWorkspace, path: string, lines: number): void {
  ws.write(path, Array.from({ length: lines }, (_, i) => generatedLine(i, "")).join(""));
  git(ws.root, "add", "-A");
  git(ws.root, "commit", "-q", "-m", "generated");
  ws.write(path, Array.from({ length: lines }, (_, i) => generatedLine(i, i % 2 ? "-" : "")).join(""));
}
