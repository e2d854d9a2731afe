import { fetchForecast } from "./forecast";

export interface Weather {
  city: string;
  celsius: number;
  summary: string;
}

/** Current weather for a city, from the forecast service. */
export async function currentWeather(city: string): Promise<Weather> {
  const forecast = await fetchForecast(city);
  const now = forecast.hours[0];
  return {
    city,
    celsius: Math.round(now.temperature),
    summary: now.summary,
  };
}
