/**
 * The repository files `intent init` sets up and `intent doctor` checks, besides the agents' hooks: the
 * example intents file, the ledger's merge driver in `.gitattributes`, and what git must not track.
 */

export const GITATTRIBUTES_LINES = [".orchestration/agent_trace.jsonl merge=union", ".orchestration/agent_trace.sealed merge=union"] as const;
export const GITIGNORE_LINES = [".orchestration/.sessions/", ".orchestration/*.lock", ".orchestration/.cache/"] as const;

/** The lines of `wanted` that `text` lacks (a trailing slash and surrounding blanks do not matter). */
export function missingLines(text: string | undefined, wanted: readonly string[]): string[] {
  const have = new Set((text ?? "").split(/\r?\n/).map(normal));
  return wanted.filter((w) => !have.has(normal(w)));
}

const normal = (line: string) => line.trim().replace(/\/$/, "");

/** `text` with `lines` appended under a comment naming intent-lsp; the existing text is kept byte for byte. */
export function appendLines(text: string | undefined, lines: readonly string[]): string {
  const current = text ?? "";
  const sep = current === "" ? "" : current.endsWith("\n") ? "\n" : "\n\n";
  return `${current}${sep}# intent-lsp\n${lines.join("\n")}\n`;
}

/** A starting active_intents.yaml: valid and empty, with a commented example to copy from. */
export const EXAMPLE_INTENTS = `# Intents: units of work, each owning the paths it may change (intent-lsp).
# Editors, agent hooks (\`intent hook …\`) and CI (\`intent check\`) judge every change against them.
# Copy the example below, uncomment it and make it yours; \`intent status\` lists the intents and problems.
#
# active_intents:
#   - id: INT-001                      # ^[A-Z]+-\\d{3,}$, unique
#     name: Build the weather API
#     status: IN_PROGRESS              # PENDING | IN_PROGRESS | COMPLETE | BLOCKED | ARCHIVED
#     owned_scope: ["src/api/**", "test/api/**"]
#     constraints: ["No new runtime dependencies"]
#     acceptance_criteria: ["Unit tests in test/api pass"]
active_intents: []
`;
