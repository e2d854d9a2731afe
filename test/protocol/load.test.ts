import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { LspClient } from "../support/lspClient";
import { TempWorkspace } from "../support/workspace";

/**
 * Load: 200 open documents and 50 edits a second between them (10 s in `npm test`, the full 60 s in
 * `npm run soak`), against the built server over stdio. At the end every document's diagnostics, for its
 * final version, are exactly those its edits call for; the server's resident memory before and after is
 * printed (a figure, not a pass mark).
 */
const SOAK = process.env["INTENT_LSP_SOAK"] === "1";
const DOCUMENTS = 200;
const EDITS_PER_SECOND = 50;
const SECONDS = SOAK ? 60 : 10;
const LINES = 40;

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

const figures: string[] = [];
afterAll(() => {
  for (const f of figures) console.log(f);
});

describe("load", () => {
  it(`${DOCUMENTS} open documents, ${EDITS_PER_SECOND} edits/s for ${SECONDS} s: every final version's diagnostics exactly right`, {
    timeout: (SECONDS + 120) * 1000,
  }, async () => {
    const ws = new TempWorkspace();
    ws.select("INT-001"); // owns src/api/**: edits there are fine; edits in src/auth and docs are out of scope
    const files: string[] = [];
    for (let i = 0; i < DOCUMENTS; i++) {
      const dir = i % 4 === 0 ? "src/auth/load" : i % 4 === 1 ? "docs/load" : "src/api/load";
      const path = `${dir}/f${i}.ts`;
      ws.write(path, `${Array.from({ length: LINES }, (_, l) => `line ${l} of ${path}`).join("\n")}\n`);
      files.push(path);
    }
    const client = await LspClient.start({ root: ws.root });
    try {
      for (const f of files) await client.open(f, "typescript");
      await client.waitForDiagnostics(files[DOCUMENTS - 1]!, () => true);
      const rssStart = rssMiB(client.process.pid!);

      // the edits: whole-line replacements, so the lines edited are exactly the lines that differ
      const baseline = new Map(files.map((f) => [f, client.text(f).split("\n")]));
      let seed = 12_345;
      const rnd = (n: number) => {
        seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
        return seed % n;
      };
      const total = EDITS_PER_SECOND * SECONDS;
      const start = Date.now();
      for (let e = 0; e < total; e++) {
        const due = start + (e * 1000) / EDITS_PER_SECOND;
        const wait = due - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const f = files[rnd(DOCUMENTS)]!;
        const line = rnd(LINES);
        // sometimes the line's own text again: typed and undone is not an edit
        await client.setLine(f, line, rnd(5) === 0 ? baseline.get(f)![line]! : `edit ${e} ${"é😀".repeat(rnd(3))}`);
      }
      const took = (Date.now() - start) / 1000;

      // every document's final version published, then compared with what its edits call for
      const version = (f: string) => client.version(f);
      const deadline = Date.now() + 60_000;
      for (const f of files) {
        for (;;) {
          const p = client.diagnostics.get(client.uri(f));
          if (p?.version === version(f)) break;
          expect(Date.now() < deadline, `no diagnostics for ${f} v${version(f)} (last v${p?.version})`).toBe(true);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      let wrong = 0;
      let diagnosticsChecked = 0;
      for (const f of files) {
        const now = client.text(f).split("\n");
        const base = baseline.get(f)!;
        const edited = now.map((l, i) => l.replace(/[ \t]+$/, "") !== (base[i] ?? "").replace(/[ \t]+$/, ""));
        const expected: { start: number; end: number; endChar: number }[] = [];
        if (!f.startsWith("src/api/")) {
          for (let i = 0; i < edited.length; i++) {
            if (!edited[i]) continue;
            let j = i;
            while (j + 1 < edited.length && edited[j + 1]) j++;
            expected.push({ start: i, end: j, endChar: now[j]!.length });
            i = j;
          }
        }
        const got = (client.diagnostics.get(client.uri(f))!.diagnostics as Diagnostic[]).map((d) => ({
          code: d.code,
          start: d.range.start.line,
          end: d.range.end.line,
          endChar: d.range.end.character,
        }));
        const want = expected.map((x) => ({ code: "out-of-scope", ...x }));
        diagnosticsChecked += want.length;
        if (JSON.stringify(got) !== JSON.stringify(want)) {
          wrong++;
          expect(got, f).toEqual(want);
        }
      }
      const rssEnd = rssMiB(client.process.pid!);
      figures.push(
        `load: ${DOCUMENTS} documents, ${total} edits in ${took.toFixed(1)} s (${(total / took).toFixed(1)}/s), ${diagnosticsChecked} diagnostics checked, ${wrong} documents wrong; server RSS ${rssStart} MiB at start, ${rssEnd} MiB at end`,
      );
      expect(wrong).toBe(0);
      expect(client.process.exitCode).toBeNull();
    } finally {
      await client.stop();
      ws.dispose();
    }
  });
});
