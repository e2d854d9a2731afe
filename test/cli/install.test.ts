import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/lspClient";
import { ensureBuilt } from "../support/builtDist";

/**
 * intent-lsp installed as users install a language server: the tarball `npm pack` makes, installed with
 * `npm install -g` into an empty prefix with no registry at hand, gives working `intent` and `intent-lsp`
 * commands. The pack skips `prepack` (the build): the other test files read dist/ while this one runs, and
 * `ensureBuilt` has built it from the same sources.
 */

beforeAll(ensureBuilt);

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "intent-lsp-install-"));
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function npm(args: string[], cwd: string) {
  // a private cache: the install must not depend on (or fill) the user's
  const r = spawnSync("npm", [...args, "--cache", join(tmp, "npm-cache"), "--no-audit", "--no-fund", "--no-update-notifier"], { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`npm ${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** One JSON-RPC message in LSP framing. */
const frame = (message: unknown) => {
  const body = JSON.stringify(message);
  return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
};

/** Starts the server, sends `initialize`, and resolves with the first response it sends back. */
function initialize(server: string): Promise<{ id: number; result?: { capabilities?: object; serverInfo?: { name: string; version?: string } } }> {
  return new Promise((resolve, reject) => {
    const child = spawn(server, ["--stdio"], { stdio: ["pipe", "pipe", "pipe"] });
    let buffer = Buffer.alloc(0);
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`intent-lsp exited (${code}) before answering initialize: ${stderr}`)));
    child.stdout.on("data", (d: Buffer) => {
      buffer = Buffer.concat([buffer, d]);
      for (;;) {
        const header = buffer.indexOf("\r\n\r\n");
        if (header < 0) return;
        const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, header).toString())?.[1]);
        if (buffer.length < header + 4 + length) return;
        const message = JSON.parse(buffer.subarray(header + 4, header + 4 + length).toString());
        buffer = buffer.subarray(header + 4 + length);
        if (message.id === 1) {
          child.removeAllListeners("exit");
          child.kill();
          resolve(message);
          return;
        }
      }
    });
    child.stdin.write(frame({ jsonrpc: "2.0", id: 1, method: "initialize", params: { processId: process.pid, rootUri: null, capabilities: {} } }));
  });
}

describe("installing the npm package", () => {
  it("npm pack, then npm install -g into an empty prefix offline: intent and intent-lsp work", async () => {
    npm(["pack", "--ignore-scripts", "--pack-destination", tmp], REPO_ROOT);
    const tarball = readdirSync(tmp).find((f) => f.endsWith(".tgz"));
    expect(tarball).toBe(`${pkg.name}-${pkg.version}.tgz`);

    const prefix = join(tmp, "prefix");
    npm(["install", "-g", "--offline", "--prefix", prefix, join(tmp, tarball!)], tmp);
    const bin = join(prefix, "bin");
    expect(existsSync(join(bin, "intent"))).toBe(true);
    expect(existsSync(join(bin, "intent-lsp"))).toBe(true);

    // only Node: run from an empty folder, with no node_modules of this repository in reach
    const version = spawnSync(join(bin, "intent"), ["--version"], { cwd: tmp, encoding: "utf8" });
    expect(version.stderr).toBe("");
    expect(version.stdout.trim()).toContain(pkg.version);
    expect(version.status).toBe(0);

    // the worker threads' script ships beside the bundles that start it (a package without it would count and
    // read every large ledger in one thread)
    const workers = spawnSync(process.execPath, [join(prefix, "lib/node_modules", pkg.name, "dist/intent-workers.js")], { cwd: tmp, encoding: "utf8" });
    expect(workers.stderr).toContain("this script serves intent's worker threads");
    expect(workers.status).toBe(2);

    const answer = await initialize(join(bin, "intent-lsp"));
    expect(answer.result?.capabilities).toEqual(expect.objectContaining({ hoverProvider: true }));
  });

  it("the package is publishable and installs nothing but itself", () => {
    expect(pkg.private).toBeUndefined();
    expect(pkg.license).toBe("MIT");
    expect(pkg.repository?.url).toMatch(/^git\+https:\/\/github\.com\//);
    expect(pkg.engines?.node).toBeDefined();
    expect(pkg.dependencies ?? {}).toEqual({}); // dist/ bundles every library it runs
    expect(pkg.scripts?.prepack).toMatch(/npm run -s build/);
    for (const entry of Object.values(pkg.bin as Record<string, string>)) expect(pkg.files).toContain(entry);
  });

  it("the Zed extension installs, and the VS Code package is named, as package.json says", () => {
    const zed = readFileSync(join(REPO_ROOT, "clients/zed/src/lib.rs"), "utf8");
    expect(/const PACKAGE: &str = "([^"]+)";/.exec(zed)?.[1]).toBe(pkg.name);
    expect(/const PACKAGE_SERVER: &str = "([^"]+)";/.exec(zed)?.[1]).toBe(`node_modules/${pkg.name}/${pkg.bin["intent-lsp"]}`);
    const vscode = readFileSync(join(REPO_ROOT, "scripts/package-vscode.mjs"), "utf8");
    expect(vscode).toContain("`${pkg.name}-${pkg.version}.vsix`");
  });
});
