import { EDITOR_SETTINGS, type Settings } from "@shared/settings";
import { sanitize } from "../engine/settings";

/**
 * The editor's `intentLsp` settings. Only how things are shown and who the editor's saves are attributed
 * to may differ per editor (EDITOR_SETTINGS); what the rules are (autoSelect, exempt, ledgerPath) lives in
 * `.orchestration/config.jsonc`, so that the editor, the agent hooks and CI can never disagree.
 */
const EDITOR_KEYS = new Set<keyof Settings>(EDITOR_SETTINGS);

export function editorSettings(raw: unknown): { values: Partial<Settings>; issues: string[] } {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return { values: {}, issues: [] };
  const { values, issues } = sanitize(raw as Record<string, unknown>);
  const kept: Partial<Settings> = {};
  for (const [key, value] of Object.entries(values) as [keyof Settings, never][]) {
    if (EDITOR_KEYS.has(key)) kept[key] = value;
    else
      issues.push(`"${key}" is a workspace rule: set it in .orchestration/config.jsonc, where the agent hooks and \`intent check\` see it too (ignored here).`);
  }
  return { values: kept, issues };
}
