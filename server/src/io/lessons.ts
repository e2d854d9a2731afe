import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { AGENT_NOTES_FILE } from "../engine/workspaceFiles";
import { readOptional } from "./optionalFile";

/**
 * "Lessons learned" in `.orchestration/AGENT.md` (README "What it reads and writes"): a short note when work lands out of scope or a
 * gate denies a write, so the next agent (or person) reads why. At most one note per file, intent and day,
 * found again by an HTML comment that renders invisibly. Appends only; the people's text is never rewritten.
 */
export interface Lesson {
  path: string;
  intentId: string | null;
  /** What happened and what to do instead, one or two sentences. */
  text: string;
  now?: Date;
}

const HEADING = "## Lessons learned";

export function noteLesson(root: string, lesson: Lesson): boolean {
  const file = join(root, AGENT_NOTES_FILE);
  const day = (lesson.now ?? new Date()).toISOString().slice(0, 10);
  const marker = `<!-- intent-lsp lesson ${day} ${lesson.intentId ?? "none"} ${lesson.path} -->`;
  const current = readOptional(file) ?? "";
  if (current.includes(marker)) return false;
  let prefix = current === "" || current.endsWith("\n") ? "" : "\n";
  if (!current.includes(HEADING)) prefix += `${current === "" ? "" : "\n"}${HEADING}\n\n`;
  appendFileSync(file, `${prefix}- ${day} \`${lesson.path}\` (${lesson.intentId ?? "no intent"}): ${lesson.text} ${marker}\n`);
  return true;
}
