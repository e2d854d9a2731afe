export interface Hour {
  temperature: number;
  summary: string;
}

export async function fetchForecast(city: string): Promise<{ hours: Hour[] }> {
  const res = await fetch(`https://forecast.example/v1/${encodeURIComponent(city)}`);
  if (!res.ok) throw new Error(`forecast for ${city}: HTTP ${res.status}`);
  return (await res.json()) as { hours: Hour[] };
}
