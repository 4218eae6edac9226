import { expect } from 'chai';
import { forecastWeather, MAX_TEMPERATURE_C, MIN_TEMPERATURE_C, SUMMARIES, toFahrenheit } from '../src';
import { type SampleServer, startSampleServer } from './sample-server';
import { checkedFetch } from './checked-fetch';

/** A fixed sequence, cycled, so that each test knows what it will get. */
function sequence(...values: number[]): () => number {
  let index = 0;
  return () => values[index++ % values.length]!;
}

describe('forecastWeather', () => {
  it('answers the five days from tomorrow, in UTC, across a year end', () => {
    // 23:30 UTC on 30 December is already 31 December east of UTC: tomorrow must still be the 31st.
    const forecasts = forecastWeather({ now: () => new Date('2024-12-30T23:30:00Z'), random: Math.random });
    expect(forecasts.map((forecast) => forecast.date)).to.deep.equal([
      '2024-12-31',
      '2025-01-01',
      '2025-01-02',
      '2025-01-03',
      '2025-01-04',
    ]);
  });

  it('counts 29 February in a leap year', () => {
    const forecasts = forecastWeather({ now: () => new Date('2024-02-27T00:00:00Z'), random: Math.random });
    expect(forecasts.map((forecast) => forecast.date)).to.deep.equal([
      '2024-02-28',
      '2024-02-29',
      '2024-03-01',
      '2024-03-02',
      '2024-03-03',
    ]);
  });

  it('spans -20 to 55 °C and the whole summary list, ends included', () => {
    const coldest = forecastWeather({ now: () => new Date(), random: () => 0 });
    const hottest = forecastWeather({ now: () => new Date(), random: () => 0.999999 });
    expect(coldest.map((forecast) => [forecast.temperatureC, forecast.summary])).to.deep.equal(
      Array(5).fill([MIN_TEMPERATURE_C, 'Freezing']),
    );
    expect(hottest.map((forecast) => [forecast.temperatureC, forecast.summary])).to.deep.equal(
      Array(5).fill([MAX_TEMPERATURE_C, 'Scorching']),
    );
  });

  it('draws the temperature, then the summary, from the injected source', () => {
    const [first] = forecastWeather({ now: () => new Date(), random: sequence(0.5, 0.35) });
    expect(first).to.include({ temperatureC: 18, summary: 'Cool' }); // -20 + floor(0.5 × 76); floor(0.35 × 10) = 3
  });
});

describe('toFahrenheit', () => {
  it('computes as the .NET template does, truncating toward zero', () => {
    expect([-20, -1, 0, 1, 37, 55].map(toFahrenheit)).to.deep.equal([-3, 31, 32, 33, 98, 130]);
  });
});

describe('GET /weatherforecast', () => {
  let server: SampleServer;
  const now = new Date('2025-03-09T10:00:00Z');
  afterEach(() => server.close());

  it('answers five forecasts as JSON, from tomorrow, each of the documented shape', async () => {
    server = await startSampleServer({
      now: () => now,
      random: sequence(0.1, 0.2, 0.9, 0.95, 0.42, 0.01, 0.77, 0.5, 0.3, 0.66),
    });
    const response = await checkedFetch(`${server.url}/weatherforecast`);

    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    const body = (await response.json()) as Record<string, unknown>[];
    expect(body).to.be.an('array').with.lengthOf(5);
    expect(body.map((forecast) => forecast.date)).to.deep.equal([
      '2025-03-10',
      '2025-03-11',
      '2025-03-12',
      '2025-03-13',
      '2025-03-14',
    ]);
    for (const forecast of body) {
      expect(forecast).to.have.all.keys('date', 'temperatureC', 'temperatureF', 'summary');
      expect(forecast.date)
        .to.be.a('string')
        .and.match(/^\d{4}-\d{2}-\d{2}$/);
      expect(Number.isInteger(forecast.temperatureC), 'temperatureC is an integer').to.equal(true);
      expect(forecast.temperatureC).to.be.within(-20, 55);
      expect(forecast.temperatureF).to.equal(32 + Math.trunc((forecast.temperatureC as number) / 0.5556));
      expect(SUMMARIES).to.include(forecast.summary);
    }
    expect(body.map((forecast) => forecast.temperatureC)).to.deep.equal([-13, 48, 11, 38, 2]);
  });

  it('uses the real clock and Math.random when none is injected', async () => {
    server = await startSampleServer();
    const body = (await (await checkedFetch(`${server.url}/weatherforecast`)).json()) as { date: string }[];
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const afterMidnight = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    expect([tomorrow, afterMidnight]).to.include(body[0]!.date);
  });
});
