import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import addFormats from 'ajv-formats';
import OpenAPIBackend, { ValidationContext } from 'openapi-backend';
import { parse } from 'yaml';

export interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      {
        operationId?: string;
        tags?: string[];
        security?: unknown[];
        responses?: Record<string, { content?: Record<string, unknown> }>;
      }
    >
  >;
  tags: { name: string }[];
  components?: Record<string, unknown>;
}

/** The methods an OpenAPI path item can describe, bar HEAD (GET's) and OPTIONS (HTTP's own answer). */
const DESCRIBED_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'TRACE'];

/**
 * The schema with every object that lists its properties and says nothing of others closed to them, so a field the
 * description lacks fails the test that received it. The members of an allOf are left open: each lists only its part.
 */
function closed(schema: unknown, inAllOf = false): unknown {
  if (Array.isArray(schema)) return schema.map((each) => closed(each, inAllOf));
  if (typeof schema !== 'object' || schema === null) return schema;
  const node = schema as Record<string, unknown>;
  for (const [key, value] of Object.entries(node))
    if (key !== 'example' && key !== 'examples' && key !== 'enum' && key !== 'const')
      node[key] = closed(value, key === 'allOf');
  if (!inAllOf && !('allOf' in node) && 'properties' in node && !('additionalProperties' in node))
    node.additionalProperties = false;
  return node;
}

export interface OpenApiContract {
  readonly document: OpenApiDocument;
  /**
   * Throws unless a response is what the description says it can be: a
   * documented status of the operation (or its `4XX` range, or `default`), its
   * content type, a body matching its schema. HEAD is checked as the path's
   * GET; OPTIONS on a described path must answer the methods described there in
   * `Allow`. A request no operation describes may only get a 404 or 405 problem.
   * A request whose parameters (path, query, and the `requestHeaders` sent) the
   * description forbids must not be taken: a 2xx or 3xx to it throws. Bodies are
   * left to each test (a service may take property names in any case).
   */
  readonly assertMatches: (
    method: string,
    url: string,
    response: Response,
    requestHeaders?: RequestInit['headers'],
  ) => Promise<void>;
}

/**
 * openapi-backend over a service's OpenAPI file: finds the operation a request hit and validates the response against
 * it, formats (uuid, date-time) included.
 */
export function openApiContract(specFile: string): OpenApiContract {
  const name = `docs/${basename(specFile)}`;
  const document = parse(readFileSync(specFile, 'utf8')) as OpenApiDocument;
  // quick: openapi-backend's own check of the document knows only OpenAPI 3.0; each service's contract test checks it
  // against 3.1.
  let backend: Promise<OpenAPIBackend> | undefined;
  const api = () =>
    (backend ??= new OpenAPIBackend({
      definition: structuredClone(document) as never,
      strict: true,
      quick: true,
      customizeAjv: (ajv) => addFormats(ajv),
    }).init());
  // One compiled validator per response schema, compiled by the Ajv openapi-backend builds (formats included).
  let ajv: ReturnType<OpenAPIBackend['validator']['getAjv']> | undefined;
  const validators = new WeakMap<object, ReturnType<NonNullable<typeof ajv>['compile']>>();
  return {
    document,
    async assertMatches(method, url, response, requestHeaders) {
      const backend = await api();
      const { pathname, searchParams } = new URL(url);
      const where = `${method} ${pathname} → ${response.status}`;
      const contentType = response.headers.get('content-type')?.split(';')[0] ?? null;
      const described = (as: string) =>
        backend.matchOperation({ method: as, path: pathname, query: Object.fromEntries(searchParams), headers: {} });
      if (method === 'OPTIONS') {
        // HTTP's own answer (RFC 9110), not an operation: on a described path, the methods the description lists there.
        const listed = DESCRIBED_METHODS.filter((each) => described(each));
        if (listed.length > 0) {
          const allow = (response.headers.get('allow') ?? '').split(/,\s*/).filter((each) => each !== 'HEAD');
          if (response.status !== 200 && response.status !== 204)
            throw new Error(`${where}: OPTIONS on a described path answers 200 or 204 with Allow`);
          if (allow.toSorted().join(', ') !== listed.toSorted().join(', '))
            throw new Error(`${where}: Allow is ${allow.join(', ')}, ${name} lists ${listed.join(', ')}`);
          if ((await response.clone().text()) !== '') throw new Error(`${where}: OPTIONS answered a body`);
          return;
        }
      }
      // HEAD is GET without the body (RFC 9110): described by the GET of the path.
      const operation = described(method === 'HEAD' ? 'GET' : method);
      if (!operation) {
        if ((response.status === 404 || response.status === 405) && contentType === 'application/problem+json') return;
        throw new Error(`${where}: no operation in ${name} describes this request`);
      }
      if (response.status < 400) {
        const headers = Object.fromEntries(new Headers(requestHeaders));
        const request = { method, path: pathname, query: Object.fromEntries(searchParams), headers };
        const refused = (backend.validateRequest(request, operation).errors ?? []).filter((error) =>
          /^\/(path|query|header)\b/.test(error.instancePath),
        );
        if (refused.length > 0)
          throw new Error(`${where}: ${name} forbids this request, but it was taken: ${JSON.stringify(refused)}`);
      }
      // The exact status, else its range (`4XX`), else `default`, as OpenAPI reads a responses object.
      const responses = (operation.responses ?? {}) as Record<string, { content?: Record<string, unknown> }>;
      const status = String(response.status);
      const documented = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
      if (!documented)
        throw new Error(`${where}: status ${response.status} is not documented for ${operation.operationId}`);
      const mediaTypes = Object.keys(documented.content ?? {});
      if (mediaTypes.length === 0) {
        if ((await response.clone().text()) !== '') throw new Error(`${where}: documented without a body, but has one`);
        return;
      }
      if (method === 'HEAD') return;
      if (!contentType || !mediaTypes.includes(contentType))
        throw new Error(`${where}: content type ${contentType} is not one of ${mediaTypes.join(', ')}`);
      const text = await response.clone().text();
      // application/json and …+json are one JSON document; application/x-ndjson is lines of them, checked as text.
      const body: unknown = /[/+]json$/.test(contentType) ? JSON.parse(text) : text;
      // The schema of the media type answered: openapi-backend's validateResponse reads application/json's only, so
      // a problem+json body went unchecked.
      const schema = (documented.content?.[contentType] as { schema?: object } | undefined)?.schema;
      if (!schema) return;
      let validate = validators.get(schema);
      if (!validate) {
        ajv ??= backend.validator.getAjv(ValidationContext.Response);
        validate = ajv.compile(closed(structuredClone(schema)) as object);
        validators.set(schema, validate);
      }
      if (!validate(body))
        throw new Error(
          `${where}: body does not match the schema: ${JSON.stringify(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
        );
    },
  };
}
