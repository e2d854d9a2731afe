/**
 * The name a repository's rows carry in an export (`repo`): `owner/name` from its origin's URL, as the
 * forges show it, so that every clone of one repository exports under one name.
 */

/**
 * The repository's path on its forge from a git remote URL (https, ssh, git, scp-like `git@host:owner/name.git`):
 * `owner/name`, or `group/subgroup/name` where the forge nests groups. Undefined for a local path or a
 * `file:` URL, which name a folder, not a repository on a forge.
 */
export function repoNameFromUrl(url: string): string | undefined {
  const trimmed = url.trim();
  // scp-like: git@github.com:owner/name.git
  const scp = /^[^/@\s]+@[^:/\s]+:(.+)$/.exec(trimmed);
  let path: string | undefined = scp?.[1];
  if (path === undefined) {
    try {
      const url = new URL(trimmed);
      if (!url.host) return undefined;
      path = url.pathname;
    } catch {
      return undefined;
    }
  }
  const parts = path
    .replace(/\.git\/?$/, "")
    .split("/")
    .filter(Boolean);
  if (parts.length < 2) return undefined;
  return parts.join("/");
}
