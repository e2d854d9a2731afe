export function requireToken(header: string | undefined): string {
  if (!header?.startsWith("Bearer ")) throw new Error("missing bearer token");
  return header.slice("Bearer ".length);
}
