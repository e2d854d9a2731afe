import { closeSync, fstatSync, readSync } from "node:fs";
import { openRegularSync } from "./regularFiles";
import type { Settings } from "@shared/settings";

/**
 * Which model wrote an agent's change (DESIGN §2.2 `contributor.model_id`), named the models.dev way:
 * `provider/model`. One resolution for every agent door, and the one normalization `intent migrate` applies
 * to older records.
 */

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

const PROVIDERS: readonly [RegExp, string][] = [
  [/^claude/i, "anthropic"],
  [/^(gpt|o\d|chatgpt|codex)/i, "openai"],
  [/^gemini/i, "google"],
  [/^grok/i, "xai"],
  [/^(composer|cursor)/i, "cursor"],
];

/** models.dev style `provider/model`: an id without a provider gets the one its name implies. */
export function normalizeModelId(raw: string | undefined, fallbackProvider?: string): string | undefined {
  const id = raw?.trim();
  if (!id || id === "<synthetic>" || id === "default" || id === "auto") return undefined;
  if (id.includes("/")) return id.slice(0, 250);
  const provider = PROVIDERS.find(([re]) => re.test(id))?.[1] ?? fallbackProvider;
  return (provider ? `${provider}/${id}` : id).slice(0, 250);
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
