import type { SwaggerDocument } from '@platform/http';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

type Operation = { security?: Record<string, string[]>[] } & Record<string, unknown>;
type Spec = {
  paths?: Record<string, Record<string, Operation>>;
  components?: Record<string, Record<string, unknown>>;
  servers?: unknown;
} & Record<string, unknown>;

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
const SCHEME = 'gatewayClientCredentials';

export interface ApiDocument {
  readonly name: string;
  readonly slug: string;
  readonly file: string;
  /** The scopes of the API's tokens, offered by the Authorize dialog. */
  readonly scopes: Readonly<Record<string, string>>;
}

/**
 * A service's OpenAPI description as the gateway serves it: its API paths
 * only (health, metrics and docs are the gateway's own), the gateway as its
 * server, and an OAuth 2.0 client credentials scheme whose token URL is the
 * gateway's /identity/token, required by every operation that requires a
 * token, with the same scopes. swagger-ui's Authorize button then gets a real
 * token from the identity service; the issuer infers the API from the scopes.
 */
export function gatewayDocument({ name, slug, file, scopes }: ApiDocument): SwaggerDocument {
  const spec = parse(readFileSync(file, 'utf8')) as Spec;
  const paths: Spec['paths'] = {};
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    if (!path.startsWith('/api/')) continue;
    paths[path] = Object.fromEntries(
      Object.entries(item).map(([method, operation]) => {
        if (!METHODS.has(method)) return [method, operation];
        const open = Array.isArray(operation.security) && operation.security.length === 0;
        const required = open
          ? []
          : (operation.security ?? [{}]).map((requirement) => ({
              [SCHEME]: [...new Set(Object.values(requirement).flat())],
            }));
        return [method, { ...operation, security: required }];
      }),
    );
  }
  const components = spec.components ?? {};
  return {
    name,
    slug,
    spec: {
      ...spec,
      servers: [{ url: '/', description: 'this gateway' }],
      paths,
      components: {
        ...components,
        securitySchemes: {
          ...components.securitySchemes,
          [SCHEME]: {
            type: 'oauth2',
            description:
              'A token from the identity service, through this gateway, by the client credentials grant. Tick the scopes to ask for: they name the API.',
            flows: { clientCredentials: { tokenUrl: '/identity/token', scopes } },
          },
        },
      },
    },
  };
}
