/**
 * vitest's global setup: the processes the tests start (the CLI, the hooks, the server, the editors' node
 * processes) make no TLS connection, yet a node process given NODE_EXTRA_CA_CERTS parses that bundle as it
 * starts, whether it connects or not: on a machine whose environment names the system's bundle that is
 * ~80 ms of CPU per process, more than most of the commands the tests run, and the tests start well over a
 * thousand. Emptied here, before vitest starts its workers, which inherit the environment (an empty value is
 * no bundle). The benchmarks do the same (bench/main.ts).
 */
export default function setup(): void {
  if (process.env["NODE_EXTRA_CA_CERTS"]) process.env["NODE_EXTRA_CA_CERTS"] = "";
}
