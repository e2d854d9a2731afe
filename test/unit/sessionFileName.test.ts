import { describe, expect, it } from "vitest";
import { sessionFileName, WORKSPACE_SELECTION } from "../../server/src/engine/sessions";

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
