/**
 * The ledger as committed at HEAD, the anchor `intent verify` holds the working ledger to: the `prev` chain
 * proves that no record between two others was removed, but not that the newest ones, or all of them, still
 * are (a file emptied or cut short is a valid chain). Every record committed at HEAD must still be in the
 * live ledger or its sealed segments; git keeps the committed bytes, so the records missing are named.
 */
import { gitSpawn, gitSync } from "../gitRunner";

const NEWLINE = 0x0a;

/**
 * Hands each line of the ledger as committed at HEAD to `each` (1-based, without its newline; a part line at
 * the end too, empty when the file ends in a newline), reading git's output as it comes: a ledger of any size
 * is read with flat memory. Undefined when it was read, or when there is nothing committed to hold the file
 * to (no HEAD, not a repository, no ledger in HEAD); else why HEAD's ledger could not be read (a partial
 * clone without the blob, git failing).
 */
export async function forEachCommittedLine(root: string, ledgerPath: string, each: (bytes: Buffer, line: number) => void): Promise<string | undefined> {
  // the blob HEAD holds at the ledger's path (relative to the workspace, which may be a repository's subfolder)
  const named = gitSync(root, ["rev-parse", "--verify", "--quiet", `HEAD:./${ledgerPath}`], { encoding: "utf8" });
  const blob = named.stdout.trim();
  if (named.status !== 0) return undefined;
  return new Promise((settle) => {
    // Stryker disable next-line ObjectLiteral,ArrayDeclaration: equivalent: git cat-file blob reads no input, and its output is read from its pipes either way
    const child = gitSpawn(root, ["cat-file", "blob", blob], { stdio: ["ignore", "pipe", "pipe"] });
    let carry: Buffer = Buffer.alloc(0);
    let line = 0;
    let failed: string | undefined;
    let stderr = "";
    child.on("error", (e) => {
      failed ??= e.message;
    });
    child.stderr!.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
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
        each(carry, ++line);
        settle(undefined);
      } else settle(failed ?? (stderr.trim().split("\n")[0] || `git cat-file exited with code ${code}`));
    });
  });
}
