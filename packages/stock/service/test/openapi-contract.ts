import { DEFAULT_CONFIG } from '../src';
import { readFileSync } from 'node:fs';
import OpenAPIBackend from 'openapi-backend';
import { parse } from 'yaml';

export const openApiDocument = parse(readFileSync(DEFAULT_CONFIG.openApiFile, 'utf8')) as {
  paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, { content?: Record<string, unknown> }> }>>;
  tags: { name: string }[];
};

let backend: Promise<OpenAPIBackend> | undefined;

// quick: openapi-backend's own check of the document knows only OpenAPI 3.0; the contract test checks it against 3.1.

/** openapi-backend over docs/openapi.yaml: finds the operation a request hit and validates the response against it. */
function contract(): Promise<OpenAPIBackend> {
  backend ??= new OpenAPIBackend({ definition: structuredClone(openApiDocument) as never, strict: true, quick: true }).init();
  return backend;
}

/**
 * Throws unless a response is what docs/openapi.yaml says it can be: a
 * documented status of the operation, its content type, a body matching its
 * schema. A request no operation describes may only get a 404 or 405 problem.
 */
export async function assertMatchesContract(method: string, url: string, response: Response): Promise<void> {
  const api = await contract();
  const { pathname, searchParams } = new URL(url);
  const where = `${method} ${pathname} → ${response.status}`;
  const contentType = response.headers.get('content-type')?.split(';')[0] ?? null;
  const operation = api.matchOperation({ method, path: pathname, query: Object.fromEntries(searchParams), headers: {} });
  if (!operation) {
    if ((response.status === 404 || response.status === 405) && contentType === 'application/problem+json') return;
    throw new Error(`${where}: no operation in docs/openapi.yaml describes this request`);
  }
  const documented = operation.responses?.[String(response.status)] as { content?: Record<string, unknown> } | undefined;
  if (!documented) throw new Error(`${where}: status ${response.status} is not documented for ${operation.operationId}`);
  const mediaTypes = Object.keys(documented.content ?? {});
  if (mediaTypes.length === 0) {
    if ((await response.clone().text()) !== '') throw new Error(`${where}: documented without a body, but has one`);
    return;
  }
  if (method === 'HEAD') return;
  if (!contentType || !mediaTypes.includes(contentType)) throw new Error(`${where}: content type ${contentType} is not one of ${mediaTypes.join(', ')}`);
  const text = await response.clone().text();
  const body: unknown = /json$/.test(contentType) ? JSON.parse(text) : text;
  const result = api.validateResponse(body, operation, response.status);
  if (!result.valid) throw new Error(`${where}: body does not match the schema: ${JSON.stringify(result.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
}
