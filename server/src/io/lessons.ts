import { codeSpan, plainText } from "../engine/markdownText";
import { AGENT_NOTES_FILE } from "../engine/workspaceFiles";
import { appendOwnFile, readOwnFile, UnsafeWriteError } from "./ownFiles";

/**
 * "Lessons learned" in `.orchestration/AGENT.md` (docs/INTENTS.md "What it reads and writes"): a short note when work lands out of scope or a
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

/**
 * Appends the note unless today's note for this file and intent is there. The path and the reason come
 * from agents, so they are written as text, never as markup: one line each (line breaks shown as `\n`), the
 * path in a code span it cannot close, the marker percent-encoded so it cannot end the comment.
 * False when nothing was written: already noted, or AGENT.md leads out of the workspace or is not a file.
 */
export function noteLesson(root: string, lesson: Lesson): boolean {
  const day = (lesson.now ?? new Date()).toISOString().slice(0, 10);
  const marker = `<!-- intent-lsp lesson ${day} ${markerText(lesson.intentId ?? "none")} ${markerText(lesson.path)} -->`;
  let current: string;
  try {
    current = readOwnFile(root, AGENT_NOTES_FILE) ?? "";
  } catch {
    return false; // not a regular file, or out of the workspace: nothing to append to
  }
  if (current.includes(marker)) return false;
  let prefix = current === "" || current.endsWith("\n") ? "" : "\n";
  if (!current.includes(HEADING)) prefix += `${current === "" ? "" : "\n"}${HEADING}\n\n`;
  const intent = lesson.intentId === null ? "no intent" : plainText(lesson.intentId);
  try {
    appendOwnFile(root, AGENT_NOTES_FILE, `${prefix}- ${day} ${codeSpan(lesson.path)} (${intent}): ${plainText(lesson.text)} ${marker}\n`);
  } catch (err) {
    if (err instanceof UnsafeWriteError) return false; // a courtesy note is never worth a write out of the workspace
    throw err;
  }
  return true;
}

/** Percent-encodes all but plain path characters, so the text can never end the HTML comment. */
function markerText(s: string): string {
  return s.replace(/[^A-Za-z0-9._~/+@:=,-]/gu, (c) => [...Buffer.from(c, "utf8")].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join(""));
}
