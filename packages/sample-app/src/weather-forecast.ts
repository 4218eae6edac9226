/** The summaries of the .NET `webapi` template, in its order. */
export const SUMMARIES = [
  'Freezing',
  'Bracing',
  'Chilly',
  'Cool',
  'Mild',
  'Warm',
  'Balmy',
  'Hot',
  'Sweltering',
  'Scorching',
] as const;

export const FORECAST_DAYS = 5;
export const MIN_TEMPERATURE_C = -20;
export const MAX_TEMPERATURE_C = 55;

export interface WeatherForecast {
  /** YYYY-MM-DD, in UTC. */
  readonly date: string;
  readonly temperatureC: number;
  readonly temperatureF: number;
  readonly summary: (typeof SUMMARIES)[number];
}

export interface ForecastSources {
  readonly now: () => Date;
  /** Uniform in [0, 1), like Math.random. */
  readonly random: () => number;
}

/** An integer in [min, max]; clamped so that a source answering exactly 1 cannot overshoot. */
function randomInteger(random: () => number, min: number, max: number): number {
  return Math.min(max, min + Math.floor(random() * (max - min + 1)));
}

/** As the .NET template computes it: the division, not ×9/5, and truncation toward zero like its (int) cast. */
export function toFahrenheit(temperatureC: number): number {
  return 32 + Math.trunc(temperatureC / 0.5556);
}

/** The five days from tomorrow (UTC), each with a random temperature and a random summary. */
export function forecastWeather({ now, random }: ForecastSources): WeatherForecast[] {
  const today = now();
  return Array.from({ length: FORECAST_DAYS }, (_, index) => {
    const day = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 1 + index));
    const temperatureC = randomInteger(random, MIN_TEMPERATURE_C, MAX_TEMPERATURE_C);
    return {
      date: day.toISOString().slice(0, 10),
      temperatureC,
      temperatureF: toFahrenheit(temperatureC),
      summary: SUMMARIES[randomInteger(random, 0, SUMMARIES.length - 1)]!,
    };
  });
}
