/*
 * Which model wrote an agent's change (docs/LEDGER.md, `contributor.model_id`), named the models.dev way:
 * `provider/model`. One resolution for every agent door, and the one normalization `intent migrate` applies
 * to older records.
 */
import { createHash } from "node:crypto";
import type { PersonMetadata } from "@shared/agentTrace";
import type { Identity } from "@shared/settings";

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

/** The person named in a human save's record: the settings first, git's identity where they say nothing. */
export function personOf(identity: Identity, git: { name?: string; email?: string }): PersonMetadata | undefined {
  const name = clean(identity.name) ?? clean(git.name);
  const email = clean(identity.email) ?? clean(git.email);
  const out: PersonMetadata = {};
  if (name) out.name = name;
  if (email && identity.recordEmail === "plain") out.email = email;
  if (email && identity.recordEmail === "hash") out.email_hash = `sha256:${createHash("sha256").update(email.toLowerCase()).digest("hex")}`;
  return Object.keys(out).length ? out : undefined;
}

/**
 * The person a re-attribution names for lines a human wrote (docs/LEDGER.md "Re-attribution"): the writer,
 * whose name the earlier record gives. The records keep no email a reader can carry over, so the person
 * re-recording gives theirs (as their identity settings keep it) only when they are that writer by name.
 */
export function writerPerson(writerName: string | undefined, recorder: PersonMetadata | undefined): PersonMetadata | undefined {
  if (writerName === undefined) return undefined;
  return recorder?.name === writerName ? recorder : { name: writerName };
}

/** A configured value as it can be shown on one line: trimmed, no control characters, bounded. */
function clean(value: string | undefined): string | undefined {
  const v = value
    ?.replace(/[\u0000-\u001f\u007f]/g, " ")
    .trim()
    .slice(0, 200);
  return v || undefined;
}
