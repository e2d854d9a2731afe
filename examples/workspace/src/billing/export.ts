export function toCsv(rows: { id: string; cents: number }[]): string {
  return rows.map((r) => `${r.id},${(r.cents / 100).toFixed(2)}`).join("\n");
}
