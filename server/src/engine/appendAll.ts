/**
 * Appends `items` to `to`, one at a time. `to.push(...items)` passes every item as an argument, and more than
 * ~100,000 overflow the call stack: a file with that many changed lines, pieces or findings would fail there.
 */
export function appendAll<T>(to: T[], items: readonly T[]): T[] {
  for (let i = 0; i < items.length; i++) to.push(items[i]!);
  return to;
}
