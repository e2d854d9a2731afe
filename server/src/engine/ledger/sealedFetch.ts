/**
 * Whether `intent init` may add the sealed ledger's fetch refspec to a remote without changing what a plain
 * `git fetch` or `git pull` from it does. Git treats a remote's fetch refspecs as a whole, so one more can
 * change the rest of the fetch:
 *
 * - a remote with none fetches the remote's HEAD for `git pull origin` to merge; with one, it fetches only
 *   what the refspecs name, and that pull has nothing to merge;
 * - a fetch whose refspecs store nothing (no `:destination`) follows no tags; one that stores something does;
 * - a mirror, or a refspec whose source already matches the ledger's ref, brings the ledger already.
 */

export type SealedFetchPlan = { kind: "add" } | { kind: "present" } | { kind: "leave"; why: "no fetch refspec" | "mirror" | "no stored refspec" };

/** The plan for a remote with these configured fetch refspecs (and `remote.<name>.mirror`). */
export function sealedFetchPlan(refspecs: readonly string[], mirror: boolean, sealedRef: string, ours: string): SealedFetchPlan {
  if (refspecs.includes(ours)) return { kind: "present" };
  if (refspecs.some((r) => fetchesRef(r, sealedRef))) return { kind: "present" };
  if (mirror) return { kind: "leave", why: "mirror" };
  const positive = refspecs.filter((r) => !r.startsWith("^"));
  if (!positive.length) return { kind: "leave", why: "no fetch refspec" };
  if (!positive.some(storesSomething)) return { kind: "leave", why: "no stored refspec" };
  return { kind: "add" };
}

/** Whether a (positive) refspec's source names `ref`, exactly or through its one `*`. */
function fetchesRef(refspec: string, ref: string): boolean {
  if (refspec.startsWith("^")) return false;
  const src = (refspec.startsWith("+") ? refspec.slice(1) : refspec).split(":")[0] ?? "";
  const star = src.indexOf("*");
  if (star < 0) return src === ref;
  const head = src.slice(0, star);
  const tail = src.slice(star + 1);
  return ref.length >= head.length + tail.length && ref.startsWith(head) && ref.endsWith(tail);
}

function storesSomething(refspec: string): boolean {
  const colon = refspec.indexOf(":");
  return colon >= 0 && refspec.slice(colon + 1) !== "";
}
