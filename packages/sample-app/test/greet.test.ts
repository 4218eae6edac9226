import { expect } from 'chai';
import { type SampleServer, startSampleServer } from './sample-server';
import { checkedFetch } from './checked-fetch';

describe('GET /api/user/greet/{name}', () => {
  let server: SampleServer;
  before(async () => {
    server = await startSampleServer();
  });
  after(() => server.close());

  /** `segment` goes into the path as given: encode it yourself, or not, on purpose. */
  async function greet(segment: string): Promise<{ status: number; type: string | null; text: string }> {
    const response = await checkedFetch(`${server.url}/api/user/greet/${segment}`);
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
  }

  async function expectGreeting(segment: string, message: string): Promise<void> {
    const { status, type, text } = await greet(segment);
    expect(status).to.equal(200);
    expect(type).to.equal('application/json; charset=utf-8');
    expect(JSON.parse(text)).to.deep.equal({ message });
  }

  async function expectInvalidName(segment: string, reason: string): Promise<void> {
    const { status, type, text } = await greet(segment);
    expect(status).to.equal(400);
    expect(type).to.equal('application/problem+json');
    expect(JSON.parse(text)).to.deep.equal({
      type: 'about:blank',
      title: 'One or more validation errors occurred.',
      status: 400,
      detail: 'The name in the path is invalid.',
      code: 'VALIDATION_FAILED',
      instance: `/api/user/greet/${segment}`,
      errors: { name: [reason] },
    });
  }

  it('greets a plain name', () => expectGreeting('Ada', 'Hello, Ada!'));

  it('greets any Unicode name', () => expectGreeting(encodeURIComponent('Zoë 🚀 日本'), 'Hello, Zoë 🚀 日本!'));

  it('decodes an encoded slash and spaces', async () => {
    await expectGreeting('AC%2FDC', 'Hello, AC/DC!');
    await expectGreeting('Ada%20Lovelace', 'Hello, Ada Lovelace!');
  });

  it('answers markup inside JSON only, never as HTML', async () => {
    const { status, type, text } = await greet('%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    expect(status).to.equal(200);
    expect(type).to.equal('application/json; charset=utf-8');
    expect(text).to.equal('{"message":"Hello, <script>alert(1)</script>!"}');
  });

  it('accepts exactly 100 characters, counted as code points', async () => {
    await expectGreeting('a'.repeat(100), `Hello, ${'a'.repeat(100)}!`);
    // 200 UTF-16 units: a count of units would refuse it.
    await expectGreeting(encodeURIComponent('🚀'.repeat(100)), `Hello, ${'🚀'.repeat(100)}!`);
  });

  it('refuses 101 characters with a validation problem', async () => {
    await expectInvalidName('a'.repeat(101), 'must be 1 to 100 characters long');
    await expectInvalidName(encodeURIComponent('🚀'.repeat(101)), 'must be 1 to 100 characters long');
  });

  it('refuses a malformed percent-encoding with a 400, not its raw text', async () => {
    await expectInvalidName('%E0%A4%A', 'is not valid percent-encoded UTF-8'); // a truncated escape
    await expectInvalidName('%ZZ', 'is not valid percent-encoded UTF-8');
    await expectInvalidName('%ED%A0%80', 'is not valid percent-encoded UTF-8'); // a lone surrogate
    await expectInvalidName('%3Cb%3E%E0%A4%A', 'is not valid percent-encoded UTF-8');
  });

  it('does not match an empty name', async () => {
    const { status, type } = await greet('');
    expect(status).to.equal(404);
    expect(type).to.equal('application/problem+json');
  });
});
