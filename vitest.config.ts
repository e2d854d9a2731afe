import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  // SQL files are text to the code that runs them, as the build's loader makes them (scripts/build.mjs)
  plugins: [{ name: "sql-text", transform: (code, id) => (id.endsWith(".sql") ? `export default ${JSON.stringify(code)};` : undefined) }],
  resolve: { alias: { "@shared": fileURLToPath(new URL("./shared/src", import.meta.url)) } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 180_000,
    pool: "forks",
    // git's identity is the test repository's own (`git config user.name` in a test), never the machine's:
    // a save names the person git knows, and a test must not depend on who runs it
    // The hook service is on, as for a user, so every spawned hook call may be answered by it; it leaves 5 s
    // after its last call instead of 10 minutes, so that a run does not keep dozens of them waiting.
    env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", INTENT_LSP_HOOK_SERVICE_IDLE_MS: "5000" },
    // Four files at once on two cores: the e2e and CLI tests spend most of their time waiting on the editors,
    // servers and commands they start (a run uses ~1.5 of the two cores with two at once), so two more keep
    // the cores busy; measured on this machine, vitest's wall time 273 s with two, 236 s with four.
    poolOptions: { forks: { maxForks: 4, minForks: 1 }, threads: { maxThreads: 1, minThreads: 1, isolate: false } },
    setupFiles: ["test/support/yieldBetweenTests.ts"],
    // scratch folders on a memory file system when the machine has one (see the file)
    globalSetup: ["test/support/memoryTmpdir.ts", "test/support/nodeStartup.ts"],
    projects: [
      // The unit tests call the engine's functions and leave nothing running: they share one worker thread
      // (no isolation), which saves each file a process and the loading of the modules it imports.
      { extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"], pool: "threads" } },
      // Everything else starts servers, hooks and editors, or mocks modules: a process of its own per file.
      { extends: true, test: { name: "integration", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, "test/unit/**"] } },
    ],
  },
});
