import { afterEach, beforeAll, expect } from "vitest";
import { ensureBuilt } from "./builtDist";
import { writeTranscript } from "./hookPayloads";
import { InProcessEditor } from "./inProcessEditor";
import { TempWorkspace } from "./workspace";

/**
 * The scene of the protocol tests where an editor and an agent write the same file: a workspace with INT-001
 * selected, a Claude Code transcript naming Sonnet, a second file, and an editor (in process) holding a file
 * the person created and saved. The hooks run as Claude Code runs them (dist/cli.js), hence the build.
 */

/** The model Claude Code's transcript names (writeTranscript), as records carry it. */
export const SONNET = "anthropic/claude-sonnet-4-5-20250929";
/** A second file of the workspace, never edited: reading its owners shows that the ledger was read. */
export const OTHER = "src/api/other.ts";

export const text = (lines: string[]) => lines.map((l) => `${l}\n`).join("");
export const lineRange = (line: number, length: number) => ({ start: { line, character: 0 }, end: { line, character: length } });

/** Ranges (1-based [start, end]) and contributor of a record. */
export function claims(record: Record<string, any>) {
  const conv = record.files[0].conversations[0];
  return { ranges: conv.ranges.map((r: any) => [r.start_line, r.end_line]), contributor: conv.contributor.model_id ?? conv.contributor.type };
}

/**
 * Registers the build before the file and the teardown after each test; `open(path, lines)` sets the scene up
 * with `path` holding `lines`, typed and saved by the person.
 */
export function savedDocumentScene(): { open(path: string, lines: string[]): Promise<{ ws: TempWorkspace; editor: InProcessEditor }> } {
  let ws: TempWorkspace | undefined;
  let editor: InProcessEditor | undefined;
  beforeAll(ensureBuilt);
  afterEach(async () => {
    await editor?.stop();
    ws?.dispose();
    editor = undefined;
    ws = undefined;
  });
  return {
    async open(path, lines) {
      ws = new TempWorkspace({ withLedger: false });
      ws.select("INT-001");
      writeTranscript(ws, "claude-sonnet-4-5-20250929");
      ws.write(OTHER, "other\n");
      ws.write(path, "");
      editor = await InProcessEditor.start(ws.root);
      await editor.open(path, "");
      await editor.change(path, [{ range: lineRange(0, 0), text: text(lines) }]);
      expect(await editor.save(path)).not.toBeNull();
      return { ws, editor };
    },
  };
}
