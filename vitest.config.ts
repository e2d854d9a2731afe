import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@shared": fileURLToPath(new URL("./shared/src", import.meta.url)) } },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 180_000,
    // protocol and e2e tests spawn processes; two cores here, so keep the pool small
    pool: "forks",
    // git's identity is the test repository's own (`git config user.name` in a test), never the machine's:
    // a save names the person git knows, and a test must not depend on who runs it
    env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    setupFiles: ["test/support/yieldBetweenTests.ts"],
  },
});
