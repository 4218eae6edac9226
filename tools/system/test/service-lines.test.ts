import { expect } from 'chai';
import { shownLine } from '../src/service-lines';

const stock = { name: 'stock', colour: 35 };
const AT = new Date(2026, 10, 25, 9, 5, 7, 42).toISOString();
const request = JSON.stringify({
  service: 'stock-service',
  method: 'GET',
  path: '/api/products',
  status: 200,
  durationMs: 0.42,
  requestId: 'r',
  level: 'info',
  message: 'request',
  timestamp: AT,
});

describe("start:system's lines", () => {
  it('shows a service’s JSON line as written behind its name when the format is json', () => {
    expect(shownLine(stock, request, { format: 'json', colours: true })).to.equal(`stock    │ ${request}`);
  });

  it('shows one short line per event otherwise: the time, the service as start:system names it, in its colour', () => {
    const plain = shownLine(stock, request, { format: 'pretty', colours: false });
    expect(plain).to.equal('09:05:07.042 stock    GET /api/products 200 0.4 ms');
    const coloured = shownLine(stock, request, { format: 'pretty', colours: true });
    expect(coloured).to.contain('\x1b[35mstock   \x1b[0m GET /api/products');
  });

  it('shows a line that is not JSON, as a failure to start is, as its message', () => {
    const failure = 'stock-service failed to start: port in use';
    const shown = shownLine(stock, failure, { format: 'pretty', colours: false });
    expect(shown).to.match(/^\d\d:\d\d:\d\d\.\d{3} stock {4}stock-service failed to start: port in use$/);
  });
});
