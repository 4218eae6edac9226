import { createHash, randomBytes } from 'node:crypto';

/** A browser's cookies, enough for oidc-provider's: set, replaced and expired by name, all sent back. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      const expired = attributes.some((attribute) => {
        const [key = '', setting = ''] = attribute.trim().split('=');
        if (/^max-age$/i.test(key)) return Number(setting) <= 0;
        return /^expires$/i.test(key) && Date.parse(setting) < Date.now();
      });
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** A browser of one address (the X-Forwarded-For the service trusts in these tests), following no redirect itself. */
export class Browser {
  readonly jar = new CookieJar();

  constructor(readonly address: string) {}

  async get(url: string): Promise<Response> {
    return this.send(url, { method: 'GET' });
  }

  async post(url: string, form: Record<string, string>): Promise<Response> {
    return this.send(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
  }

  private async send(url: string, init: RequestInit): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('cookie', this.jar.header());
    headers.set('x-forwarded-for', this.address);
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.jar.take(response);
    return response;
  }
}

/** A PKCE pair: the verifier the app keeps, and its S256 challenge it sends. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The `name` attribute's value of the first element matching `pattern` in an HTML page. */
export function attribute(html: string, element: RegExp, name: string): string | undefined {
  const tag = element.exec(html)?.[0];
  const value = tag && new RegExp(`${name}="([^"]*)"`).exec(tag)?.[1];
  return value?.replaceAll('&amp;', '&');
}

/** An address no other test (nor an earlier run's, counted in Redis still) signs in from. */
export const freshAddress = () => `10.${[...randomBytes(3)].join('.')}`;
