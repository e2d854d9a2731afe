
/*
 * Which model wrote an agent's change (docs/LEDGER.md, `contributor.model_id`), named the models.dev way:
 * `provider/model`. One resolution for every agent door, and the one normalization `intent migrate` applies
 * to older records.
 */

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
