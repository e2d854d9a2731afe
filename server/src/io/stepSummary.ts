/**
 * The job summary file a GitHub Actions runner names in `$GITHUB_STEP_SUMMARY`: appended to, as the runner
 * asks, and only if it is a regular file (a FIFO or a device is refused, never waited on). It is the one
 * file outside the workspace intent-lsp writes for CI, at the path the CI configuration gives.
 */
import { closeSync } from "node:fs";
import { APPEND_FLAGS, openRegularSync } from "./regularFiles";
import { writeAllSync } from "./ownFiles";

export function appendStepSummary(path: string, markdown: string): void {
  const fd = openRegularSync(path, APPEND_FLAGS);
  try {
    writeAllSync(fd, Buffer.from(markdown, "utf8"));
  } finally {
    closeSync(fd);
  }
}
