/**
 * Which files `intent revert` looks in: the paths whose records are the selected contributor's, and every
 * path content went to from one of those, followed in turn (a record's `moved_from` and `moved_lines`, and
 * the renames git shows that nobody recorded). A reachability over the paths' own facts, gathered in one
 * reading of the ledger (io/revert.ts).
 */

/** What one path's records say for the search. */
export interface PathRecords {
  /** Whether any of its records is the selected contributor's. */
  selected: boolean;
  /** The paths its records say its content came from (`moved_from`, each `moved_lines` source). */
  from: readonly string[];
}

/**
 * Every path reached from the selected ones: a path whose records took content from a reached path, and the
 * path a reached one was renamed to (`renames`, as [from, to]). A path a rename names that no record does is
 * reached like any other.
 */
export function candidatePaths(records: ReadonlyMap<string, PathRecords>, renames: readonly (readonly [string, string])[]): Set<string> {
  // who took content from each path: the edges followed from a reached path
  const takers = new Map<string, string[]>();
  const edge = (from: string, to: string) => {
    const list = takers.get(from);
    if (list) list.push(to);
    else takers.set(from, [to]);
  };
  for (const [path, r] of records) for (const from of r.from) edge(from, path);
  for (const [from, to] of renames) edge(from, to);
  const found = new Set<string>();
  const queue: string[] = [];
  for (const [path, r] of records) {
    if (!r.selected) continue;
    found.add(path);
    queue.push(path);
  }
  while (queue.length) {
    for (const next of takers.get(queue.pop()!) ?? []) {
      if (found.has(next)) continue;
      found.add(next);
      queue.push(next);
    }
  }
  return found;
}
