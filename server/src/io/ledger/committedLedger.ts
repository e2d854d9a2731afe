/**
 * The ledger as committed at HEAD, the anchor `intent verify` holds the working ledger to: the `prev` chain
 * proves that no record between two others was removed, but not that the newest ones, or all of them, still
 * are (a file emptied or cut short is a valid chain). Every record committed at HEAD must still be in the
 * live ledger or its sealed segments; git keeps the committed bytes, so the records missing are named.
 */
import { gitSpawn, gitSync } from "../gitRunner";

const NEWLINE = 0x0a;

export type CommittedLedger =
  /** No HEAD, not a repository, or the ledger is not in HEAD: nothing was committed to hold the file to. */
  | { kind: "none" }
  | { kind: "read" }
  /** HEAD names the ledger but its bytes could not be read (a partial clone without the blob, git failing). */
  | { kind: "unreadable"; why: string };

/**
 * Hands each line of the ledger as committed at HEAD to `each` (1-based, without its newline), reading git's
 * output as it comes: a ledger of any size is read with flat memory.
 */
export async function forEachCommittedLine(root: string, ledgerPath: string, each: (bytes: Buffer, line: number) => void): Promise<CommittedLedger> {
  // the blob HEAD holds at the ledger's path (relative to the workspace, which may be a repository's subfolder)
  const named = gitSync(root, ["rev-parse", "--verify", "--quiet", `HEAD:./${ledgerPath}`], { encoding: "utf8" });
  const blob = named.status === 0 ? named.stdout.trim() : "";
  if (!/^[0-9a-f]{40,64}$/.test(blob)) return { kind: "none" };
  return new Promise((settle) => {
    const child = gitSpawn(root, ["cat-file", "blob", blob], { stdio: ["ignore", "pipe", "pipe"] });
    let carry: Buffer = Buffer.alloc(0);
    let line = 0;
    let failed: string | undefined;
    let stderr = "";
    child.on("error", (e) => {
      failed ??= e.message;
    });
    child.stderr!.on("data", (c: Buffer) => {
      if (stderr.length < 2000) stderr += c.toString("utf8");
    });
    child.stdout!.on("data", (chunk: Buffer) => {
      const bytes = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      let start = 0;
      for (let nl = bytes.indexOf(NEWLINE, start); nl !== -1; nl = bytes.indexOf(NEWLINE, start)) {
        each(bytes.subarray(start, nl), ++line);
        start = nl + 1;
      }
      // the part line after the last newline waits for the rest (copied: git's buffer is reused)
      carry = Buffer.from(bytes.subarray(start));
    });
    child.on("close", (code) => {
      if (failed === undefined && code === 0) {
        if (carry.length) each(carry, ++line);
        settle({ kind: "read" });
        return;
      }
      const why = failed ?? (stderr.trim().split("\n")[0] || `git cat-file exited with code ${code}`);
      settle({ kind: "unreadable", why });
    });
  });
}
