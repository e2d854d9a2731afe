import { describe, expect, it } from "vitest";
import { codeCell, codeSpan, inlineText, plainText } from "../../server/src/engine/markdownText";
import { hookAnswerText, oneLine, terminalOutput } from "../../server/src/engine/terminalText";

/** Text from a repository or a ledger, shown in a terminal or written into Markdown, stays text. */

const HOSTILE = "a\u001b]52;c;ZXZpbA==\u0007b\u001b[2Jc\u009b2Jd\u202eevil\u2066e\u2069f\u007fg\r\n\th\u0085i\u2028j";

describe("terminal text", () => {
  it("shows every control character, DEL, C1 control, line separator and bidi override of a field as a visible escape", () => {
    expect(oneLine(HOSTILE)).toBe("a\\u001b]52;c;ZXZpbA==\\u0007b\\u001b[2Jc\\u009b2Jd\\u202eevil\\u2066e\\u2069f\\u007fg\\r\\n\\th\\u0085i\\u2028j");
  });

  it("keeps the line breaks and tabs of a whole output, and escapes the rest", () => {
    expect(terminalOutput(HOSTILE)).toBe("a\\u001b]52;c;ZXZpbA==\\u0007b\\u001b[2Jc\\u009b2Jd\\u202eevil\\u2066e\\u2069f\\u007fg\\r\n\th\\u0085i\\u2028j");
  });

  it("leaves plain text, non-Latin text and emoji as they are", () => {
    const plain = 'INT-001 — Ünïcode 名前 ❌ src/a b.ts:1-2 \\ "quoted"';
    expect(oneLine(plain)).toBe(plain);
    expect(terminalOutput(plain)).toBe(plain);
  });

  it("escapes JSON output into the same JSON", () => {
    const value = { model: HOSTILE, list: [HOSTILE, "\\\u009b"] };
    const escaped = terminalOutput(JSON.stringify(value, null, 2));
    expect(escaped).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(escaped)).toEqual(value);
  });
});

describe("a hook's answer", () => {
  it("escapes the strings an agent shows once it has parsed the JSON, keys and line breaks included", () => {
    const answer = `${JSON.stringify({ reason: "INT-001 (a\u001b[2J\nb\u202e) owns x", list: [1, "\u009b"], ["k\u0007"]: null })}\n`;
    const escaped = hookAnswerText(answer);
    expect(escaped).toBe('{"reason":"INT-001 (a\\\\u001b[2J\\nb\\\\u202e) owns x","list":[1,"\\\\u009b"],"k\\\\u0007":null}\n');
    expect(JSON.parse(escaped)).toEqual({ reason: "INT-001 (a\\u001b[2J\nb\\u202e) owns x", list: [1, "\\u009b"], "k\\u0007": null });
  });

  it("escapes an answer that is not JSON as a whole", () => {
    expect(hookAnswerText("denied: a\u001b[2J\n")).toBe("denied: a\\u001b[2J\n");
  });
});

describe("Markdown text", () => {
  it("escapes markup so that it renders as the characters it holds", () => {
    expect(inlineText("![x](https://evil.example/b.png)")).toBe("\\!\\[x\\](https:\u200d//evil.example/b.png)");
    expect(inlineText("[Approve](https://x)")).toBe("\\[Approve\\](https:\u200d//x)");
    expect(inlineText("<img src=x> & &amp; | `a` *b* _c_ ~d~ $e$ # f \\")).toBe(
      "\\<img src=x\\> \\& \\&amp; \\| \\`a\\` \\*b\\* \\_c\\_ \\~d\\~ \\$e\\$ \\# f \\\\",
    );
  });

  it("breaks @mentions, bare URLs and emails with a zero-width joiner", () => {
    expect(inlineText("@org/team and @octocat")).toBe("@\u200dorg/team and @\u200doctocat");
    expect(inlineText("see www.evil.example or WWW.x.y, mail a@b.c")).toBe("see www\u200d.evil.example or WWW\u200d.x.y, mail a@\u200db.c");
  });

  it("keeps a value with a line break on one line", () => {
    expect(inlineText("one\n## two\u001b")).toBe("one\\\\n\\#\\# two\\\\u001b");
    expect(plainText("one\n<b>\u202e")).toBe("one\\n&lt;b&gt;\\u202e");
  });

  it("puts a value in a code span fenced longer than its backticks, and escapes `|` in a table cell", () => {
    expect(codeSpan("a`b``c")).toBe("```a`b``c```");
    expect(codeSpan("`x`")).toBe("`` `x` ``");
    expect(codeSpan("a\nb\u001b")).toBe("`a\\nb\\u001b`");
    // a text of more backtick runs than a call may take arguments: the fence is still one longer than the longest
    const many = `${"a`".repeat(1_000_000)}b\`\`\`c`;
    expect(codeSpan(many)).toBe(`\`\`\`\`${many}\`\`\`\``);
    expect(codeCell("x | `y`")).toBe("`` x \\| `y` ``");
  });
});
