/**
 * `work`'s result, or "hung" once `ms` have passed without one: a door run in the test process bounded as
 * a process is (a hang is a failure, not a wait). The work itself is not stopped; its timer is cleared
 * either way.
 */
export async function withinBound<T>(work: Promise<T>, ms: number): Promise<T | "hung"> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<"hung">((resolve) => (timer = setTimeout(() => resolve("hung"), ms)));
  try {
    return await Promise.race([work, bound]);
  } finally {
    clearTimeout(timer);
  }
}
