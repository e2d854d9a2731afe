// What the tests that drive a real Chromium share (VS Code as code-server, and `intent report`'s page): the
// scratch folder and end of a run from EditorRun, Debian's headless Chromium launched into it, the VS Code
// workbench opened on a folder with the .vsix installed, and screenshots numbered by step.
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import * as path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { findFiles, installVsixOnce, startCodeServer, stopCodeServer, type CodeServerRun } from "./codeServer";
import { EditorRun } from "./editorRun";
import { ensureEditor, isolatedXdg, repoRoot } from "./editors";

export type { Page };

/** Where a test's screenshots go: .cache/artifacts/<name>/. */
export const artifactsDir = (name: string): string => path.join(repoRoot, ".cache", "artifacts", name);

/** A test's screenshots, in a folder emptied first; numbered in the order they are taken. */
export class Screenshots {
  private shot = 0;

  constructor(readonly dir: string) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }

  /** The next numbered screenshot, `NN-name.png`. */
  async take(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(this.dir, `${String(++this.shot).padStart(2, "0")}-${name}.png`) });
  }

  /** A screenshot file named by the test. */
  path(file: string): string {
    return path.join(this.dir, file);
  }
}

/** The VS Code workbench in Chromium, open on a folder, with what a step needs to say what went wrong. */
export interface Workbench {
  page: Page;
  /** The output `code-server --install-extension` printed. */
  installed: string;
  /** Script errors the page raised. */
  errors: string[];
  shots: Screenshots;
  /** The extension's output channel, as code-server writes it to its log files. */
  outputLog(): string;
  /** The extension's output and code-server's log, for a failure message. */
  describe(): string;
  /** Runs one step of a journey: a screenshot after it, named for it (`-FAILED` when it threw, with `describe()`). */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

/** Debian's Chromium, headless: no sandbox (tests run as root), no GPU, no network chatter. */
function launchChromium(executablePath: string, env: NodeJS.ProcessEnv): Promise<Browser> {
  return chromium.launch({
    executablePath,
    // tagged like the editor, so that the end of the run finds it too
    env: env as Record<string, string>,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}

/**
 * One browser-driven run per test: `start()` makes its scratch folder; after the test the browser is closed,
 * code-server's process group ended, and the rest done as for every editor run (EditorRun).
 */
export class BrowserRun {
  private readonly run: EditorRun;
  private browser: Browser | undefined;
  private codeServer: CodeServerRun | undefined;

  /** `after`: what to remove once the run has ended (a workspace the test made outside the run's folder). */
  constructor(label: string, after?: () => void) {
    this.run = new EditorRun(
      label,
      async () => {
        await this.browser?.close().catch(() => undefined);
        await stopCodeServer(this.codeServer);
        this.browser = this.codeServer = undefined;
      },
      after,
    );
  }

  /** A fresh scratch folder for this test (VS Code's runs start the server from the .vsix, not from dist/). */
  start(): string {
    return this.run.start(false);
  }

  passed(): void {
    this.run.passed();
  }

  /** Chromium, its profile in the run's folder and its processes carrying the run's tag. */
  async chromium(): Promise<Browser> {
    const bin = await ensureEditor("chromium");
    this.browser = await launchChromium(bin, isolatedXdg(this.folder()));
    return this.browser;
  }

  /**
   * VS Code on `folder`: the .vsix installed (once per test process), code-server started with `settings` over the clean workbench's,
   * and its page open in Chromium until the workbench shows (within `deadline` ms). Screenshots go to `artifacts`.
   */
  async vscode(folder: string, artifacts: string, deadline: number, settings: Record<string, unknown> = {}): Promise<Workbench> {
    const tmp = this.folder();
    const [codeServer] = await Promise.all([ensureEditor("code-server"), ensureEditor("chromium")]);
    const { extensionsDir, installed } = await installVsixOnce(codeServer);
    const userDataDir = path.join(tmp, "user-data");
    const shots = new Screenshots(artifacts);
    const run = await startCodeServer(codeServer, tmp, userDataDir, extensionsDir, folder, settings);
    this.codeServer = run;
    const page = await (await this.chromium()).newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    // bounded by the caller's deadline, not Playwright's 30 s; the workbench's own element is the fact waited for
    await page.goto(`${run.url}/?folder=${encodeURIComponent(folder)}`, { timeout: deadline, waitUntil: "domcontentloaded" });
    await page.locator(".monaco-workbench").waitFor({ timeout: deadline });
    const outputLog = () =>
      findFiles(userDataDir, "intent-lsp.log")
        .map((f) => readFileSync(f, "utf8"))
        .join("\n");
    const describe = () => `--- intent-lsp output ---\n${outputLog()}\n--- code-server ---\n${run.log().slice(-5000)}`;
    const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      try {
        const r = await fn();
        await shots.take(page, name);
        return r;
      } catch (e) {
        await shots.take(page, `${name}-FAILED`).catch(() => undefined);
        throw new Error(`step "${name}" failed: ${(e as Error).message}\n${describe()}`);
      }
    };
    return { page, installed, errors, shots, outputLog, describe, step };
  }

  private folder(): string {
    if (!this.run.dir) throw new Error("BrowserRun: call start() first");
    return this.run.dir;
  }
}
