import { expect } from 'chai';
import { chosenFormat, lineFormat, logFormatOf, prettyLine, showsColours } from '../src';

const MESSAGE = Symbol.for('message');
/** 09:05:07.042 on this machine's clock, whatever its time zone. */
const AT = new Date(2026, 10, 25, 9, 5, 7, 42).toISOString();
const terminal = { isTTY: true, hasColors: () => true };
const pipe = { isTTY: false };
const plain = { colours: false };

function formatted(format: ReturnType<typeof lineFormat>, entry: Record<string, unknown>): string {
  const info = format.transform({ ...entry } as never, format.options) as unknown as Record<symbol, string>;
  return info[MESSAGE]!;
}

describe('prettyLine', () => {
  const request = {
    level: 'info',
    message: 'request',
    service: 'stock-service',
    timestamp: AT,
    method: 'GET',
    path: '/api/products/p1',
    status: 200,
    durationMs: 3.25,
    requestId: 'r-1',
  };

  it('shows a request as the time, the service, the method, the path, the status and the duration, on one line', () => {
    expect(prettyLine(request, plain)).to.equal('09:05:07.042 stock-service GET /api/products/p1 200 3.3 ms');
  });

  it('adds what a handler told the access log, and leaves the request id to the JSON lines', () => {
    const created = { ...request, method: 'POST', status: 201, event: 'product created', productId: 'p2' };
    expect(prettyLine(created, plain)).to.equal(
      '09:05:07.042 stock-service POST /api/products/p1 201 3.3 ms event="product created" productId=p2',
    );
  });

  it('shows another event as its message, its level unless info, and the fields its message does not say', () => {
    const message = 'listening on http://127.0.0.1:8080 (node v24.1.0); tokens off: on 127.0.0.1 only';
    const started = {
      level: 'info',
      message,
      service: 'stock-service',
      timestamp: AT,
      url: 'http://127.0.0.1:8080',
      node: 'v24.1.0',
      access: 'tokens off: on 127.0.0.1 only',
      database: 'sqlite:./data/stock.db',
    };
    const shown = prettyLine(started, plain);
    expect(shown).to.equal(`09:05:07.042 stock-service ${message} database=sqlite:./data/stock.db`);
    const fields = { error: 'connect ECONNREFUSED', attempts: 3, queues: ['a'] };
    const warning = { level: 'warn', message: 'RabbitMQ is not reachable', service: 'sales', timestamp: AT, ...fields };
    expect(prettyLine(warning, plain)).to.equal(
      '09:05:07.042 sales WARN RabbitMQ is not reachable error="connect ECONNREFUSED" attempts=3 queues=["a"]',
    );
  });

  it('pads the service to the width asked, so that the lines of several services line up', () => {
    const line = prettyLine({ ...request, service: 'sales' }, { colours: false, serviceWidth: 8 });
    expect(line).to.match(/^09:05:07\.042 sales {4}GET /);
  });

  it('colours the service, a level other than info and the status, only when asked', () => {
    const line = prettyLine({ ...request, status: 503 }, { colours: true, serviceColour: 35 });
    expect(line).to.equal('09:05:07.042 \x1b[35mstock-service\x1b[0m GET /api/products/p1 \x1b[31m503\x1b[0m 3.3 ms');
    const failure = { level: 'error', message: 'down', service: 's', timestamp: AT };
    expect(prettyLine(failure, { colours: true, serviceColour: 36 })).to.contain('\x1b[31mERROR\x1b[0m');
    expect(prettyLine(request, plain)).not.to.contain('\x1b[');
  });
});

describe('the log format', () => {
  it('is one human line at a terminal and JSON into a pipe, unless LOG_FORMAT says which', () => {
    expect([chosenFormat('auto', terminal), chosenFormat('auto', pipe)]).to.deep.equal(['pretty', 'json']);
    expect([chosenFormat('json', terminal), chosenFormat('pretty', pipe)]).to.deep.equal(['json', 'pretty']);
  });

  it('writes JSON under LOG_FORMAT=json at a terminal, and plain human lines under LOG_FORMAT=pretty in a pipe', () => {
    const request = { method: 'GET', path: '/p', status: 204, durationMs: 1 };
    const entry = { level: 'info', message: 'request', service: 'svc', ...request };
    const json = JSON.parse(formatted(lineFormat(logFormatOf({ LOG_FORMAT: 'json' }), terminal), entry)) as object;
    expect(json).to.include(entry).and.to.have.property('timestamp');
    const pretty = formatted(lineFormat(logFormatOf({ LOG_FORMAT: 'pretty' }), pipe), entry);
    expect(pretty).to.match(/^\d\d:\d\d:\d\d\.\d{3} svc GET \/p 204 1\.0 ms$/);
    expect(formatted(lineFormat(logFormatOf({}), terminal), entry)).to.contain('\x1b[');
  });

  it('refuses a LOG_FORMAT it does not know, naming the ones it does', () => {
    const refusal = 'LOG_FORMAT must be one of auto, json, pretty, not "xml".';
    expect(() => logFormatOf({ LOG_FORMAT: 'xml' })).to.throw(refusal);
  });

  it('colours only a terminal that shows colours', () => {
    const monochrome = { isTTY: true, hasColors: () => false };
    expect([terminal, pipe, monochrome].map(showsColours)).to.deep.equal([true, false, false]);
  });
});
