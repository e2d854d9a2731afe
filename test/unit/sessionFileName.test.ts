import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { legacySessionFileName, sessionFileName, WORKSPACE_SELECTION, type SessionRecord } from "../../server/src/engine/sessions";
import { SESSIONS_DIR } from "../../server/src/engine/workspaceFiles";
import { listSessions, readSession, removeSession, writeSession } from "../../server/src/io/sessionFiles";

/** A session's file name is a function of its id alone: one file per id, never another id's or the workspace's. */
describe("sessionFileName", () => {
  it("names a plain id after itself, marked as a session", () => {
    expect(sessionFileName("claude-0f1e2d3c-aaaa-bbbb-cccc-1234567890ab")).toBe("claude-0f1e2d3c-aaaa-bbbb-cccc-1234567890ab.session.json");
    expect(sessionFileName("workspace")).toBe("workspace.session.json");
    expect(sessionFileName("workspace")).not.toBe(WORKSPACE_SELECTION);
  });

  it("gives any other id a readable name and a hash of the exact id", () => {
    expect(sessionFileName("a/b")).toMatch(/^a_b\.[0-9a-f]{8}\.json$/);
    expect(sessionFileName("a/b")).not.toBe(sessionFileName("a?b"));
    expect(sessionFileName(".hidden")).toMatch(/^_hidden\.[0-9a-f]{8}\.json$/);
    expect(sessionFileName(`x${"y".repeat(200)}`)).toMatch(/^xy{99}\.[0-9a-f]{8}\.json$/);
  });

  it("never gives two ids one file, whichever form each takes", () => {
    const hashed = sessionFileName("a/b"); // a_b.<hash>.json
    const plainLookalike = hashed.slice(0, -".json".length); // the plain id "a_b.<hash>"
    expect(sessionFileName(plainLookalike)).toBe(`${plainLookalike}.session.json`);
    expect(sessionFileName(plainLookalike)).not.toBe(hashed);
    const ids = ["a", "a.session", "a_", "a?", "a/", "-a", ".a", "_a"];
    expect(new Set(ids.map(sessionFileName)).size).toBe(ids.length);
  });
});

describe("a session that began before the upgrade to these names", () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
  });
  const id = "claude-7d1b2c3a-0000-4000-8000-000000000001";
  const record = (heartbeat: string, intent: string | null): SessionRecord => ({
    id,
    client: "claude-code",
    pid: 0,
    host: "h",
    startedAt: heartbeat,
    heartbeat,
    intent,
  });

  it("keeps its selection from the file it had, is listed once, and ends with both files removed", () => {
    const root = mkdtempSync(join(tmpdir(), "intent-lsp-sessions-"));
    roots.push(root);
    mkdirSync(join(root, SESSIONS_DIR), { recursive: true });
    const legacy = legacySessionFileName(id)!;
    expect(legacy).toMatch(/^claude-7d1b2c3a-0000-4000-8000-000000000001\.[0-9a-f]{8}\.json$/);
    writeFileSync(join(root, SESSIONS_DIR, legacy), JSON.stringify(record("2026-11-27T10:00:00.000Z", "INT-002")));
    expect(readSession(root, id)?.intent).toBe("INT-002");

    writeSession(root, record("2026-11-27T10:05:00.000Z", "INT-002"));
    expect(existsSync(join(root, SESSIONS_DIR, sessionFileName(id)))).toBe(true);
    expect(listSessions(root).map((s) => [s.id, s.heartbeat])).toEqual([[id, "2026-11-27T10:05:00.000Z"]]);

    removeSession(root, id);
    expect(readdirSync(join(root, SESSIONS_DIR)).filter((n) => n.endsWith(".json"))).toEqual([]);
  });

  it("reads a file under the earlier name only when it holds that very session", () => {
    const root = mkdtempSync(join(tmpdir(), "intent-lsp-sessions-"));
    roots.push(root);
    mkdirSync(join(root, SESSIONS_DIR), { recursive: true });
    writeFileSync(
      join(root, SESSIONS_DIR, legacySessionFileName(id)!),
      JSON.stringify({ ...record("2026-11-27T10:00:00.000Z", "INT-009"), id: "someone-else" }),
    );
    expect(readSession(root, id)).toBeUndefined();
    expect(legacySessionFileName("a/b")).toBeUndefined(); // an id that is not plain kept its name
  });
});
