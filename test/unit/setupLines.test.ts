import { describe, expect, it } from "vitest";
import { initOutput, isSetupFile, setupLines } from "../../server/src/io/setup/setupLines";

/** Which changed lines of a file `intent init` also writes are init's own: exactly those it writes, no more. */

const SETTINGS = `{
  "permissions": { "allow": ["Bash(npm test:*)"] },
  "hooks": {
    "Stop": [{ "hooks": [{ "type": "command", "command": "./scripts/notify.sh" }] }]
  }
}
`;

const lineNumbers = (text: string, pick: (line: string) => boolean) => text.split("\n").flatMap((l, i) => (pick(l) ? [i + 1] : []));

describe("setupLines", () => {
  it("the lines init merges into an agent's settings are its own; a line the user adds next to them is not", () => {
    const merged = initOutput(".claude/settings.json", SETTINGS)!;
    expect(merged).toContain("intent hook claude-code");
    const withUser = merged.replace('"allow": ["Bash(npm test:*)"]', '"allow": ["Bash(npm test:*)", "Read(./docs/**)"]');
    const own = setupLines(".claude/settings.json", SETTINGS, withUser);
    const userLine = lineNumbers(withUser, (l) => l.includes("Read(./docs/**)"));
    expect(userLine).toHaveLength(1);
    expect(own.has(userLine[0]!)).toBe(false);
    // every line init wrote is its own: the entries it added, and the Stop entry's line, which gained a comma
    const added = lineNumbers(withUser, (l) => l.includes("notify.sh") || l.includes("PreToolUse")).concat(
      lineNumbers(withUser, (l) => l.includes("intent hook claude-code")),
    );
    for (const n of added) expect(own.has(n), `line ${n}`).toBe(true);
    expect(own.size).toBe(withUser.split("\n").length - 1 - 5); // all but {, permissions, "hooks": {, and the two closing braces
  });

  it(".gitignore: init's block is its own, the user's lines are not; a file init does not write has none", () => {
    const base = "node_modules/\n";
    const after = `${initOutput(".gitignore", base)}coverage/\n`;
    const own = setupLines(".gitignore", base, after);
    expect([...own].sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6]); // the blank separator, "# intent-lsp" and the three lines
    expect(after.split("\n")[1]).toBe("");
    expect(isSetupFile("src/app.ts")).toBe(false);
    expect(setupLines("src/app.ts", undefined, "x\n").size).toBe(0);
  });
});
