import { afterEach } from "vitest";

/**
 * Each test ends with one turn of the event loop. A worker reports progress to vitest's main process over
 * RPC and gives up on an answer after 60 s; the answer is read only when the worker's event loop runs. A file
 * of synchronous tests that spawn processes (the CLI tests: spawnSync per command) never lets it run, so on a
 * slow machine the file outlasts the 60 s and the run fails with "Timeout calling onTaskUpdate" although every
 * test passed. One setImmediate per test reads the answers in time.
 */
afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));
