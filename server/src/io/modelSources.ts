/**
 * Where an agent's model id comes from, in order: the agent's payload, `INTENT_LSP_MODEL`, the agent's
 * transcript, the `contributor.modelId` setting. Reading the transcript is why this lives with the I/O.
 */
import { closeSync, fstatSync, readSync } from "node:fs";
import type { Settings } from "@shared/settings";
import { normalizeModelId } from "../engine/contributor";
import { openRegularSync } from "./regularFiles";

export interface ModelSources {
  /** The model the agent's own hook payload names (Cursor's `model`): the agent knows best. */
  reported?: string;
  /** `INTENT_LSP_MODEL` overrides what the agent's transcript says. */
  env: NodeJS.ProcessEnv;
  /** Claude Code's transcript (JSONL); read only when nothing above names the model. */
  transcriptPath?: string;
  /** `contributor.modelId`, the last resort; used as configured, as the editor's saves use it. */
  settings: Pick<Settings, "contributor">;
  /** The provider of an id that names none and whose name implies none (Claude Code: "anthropic"). */
  defaultProvider?: string;
}

/** In order: the agent's payload, `INTENT_LSP_MODEL`, the transcript, the `contributor.modelId` setting. */
export function resolveModelId(s: ModelSources): string | undefined {
  return (
    normalizeModelId(s.reported, s.defaultProvider) ??
    normalizeModelId(s.env["INTENT_LSP_MODEL"], s.defaultProvider) ??
    normalizeModelId(modelFromTranscript(s.transcriptPath), s.defaultProvider) ??
    s.settings.contributor.modelId
  );
}

/** The transcript's tail holds the latest turns; reading only it keeps the hook fast on long sessions. */
const TRANSCRIPT_TAIL_BYTES = 512 * 1024;

/** The model of the last assistant message in a Claude Code transcript (JSONL), if any. */
function modelFromTranscript(path: string | undefined): string | undefined {
  if (!path) return undefined;
  let text: string;
  try {
    const fd = openRegularSync(path); // the agent names it: a FIFO or a device must not hang the hook
    try {
      const size = fstatSync(fd).size;
      const length = Math.min(size, TRANSCRIPT_TAIL_BYTES);
      const buf = Buffer.alloc(length);
      readSync(fd, buf, 0, length, size - length);
      text = buf.toString("utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (!line.includes('"assistant"')) continue;
    try {
      const obj = JSON.parse(line) as { type?: unknown; message?: { model?: unknown; role?: unknown } };
      const model = obj.message?.model;
      if ((obj.type === "assistant" || obj.message?.role === "assistant") && typeof model === "string" && model !== "<synthetic>") return model;
    } catch {
      /* the first line of the tail may be cut; older lines are not needed */
    }
  }
  return undefined;
}
