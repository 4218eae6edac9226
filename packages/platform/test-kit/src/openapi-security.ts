/** What an OpenAPI description says about security: at its root, on each operation, and the schemes it defines. */
export interface SecurityDescription {
  readonly security?: unknown;
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components?: Readonly<Record<string, unknown>>;
}

/**
 * "GET /api/orders/{id}" → the ways through: each a set of scopes that lets a
 * call in (one security requirement). None for an open operation.
 */
export type ScopesByOperation = Record<string, string[][]>;

type Requirement = Readonly<Record<string, readonly string[]>>;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

/** Sorted, so that two lists of the same ways through compare equal whatever order they were written in. */
function normalised(ways: readonly (readonly string[])[]): string[][] {
  return ways.map((scopes) => [...scopes].sort()).sort((a, b) => a.join(' ').localeCompare(b.join(' ')));
}

/** An operation's own requirements, or the document's where it has none. */
function requirementsOf(document: SecurityDescription, operation: unknown): readonly Requirement[] {
  const own = (operation as { security?: readonly Requirement[] }).security;
  return (own ?? document.security ?? []) as readonly Requirement[];
}

function operationsOf(document: SecurityDescription): [key: string, operation: unknown][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]): [string, unknown] => [`${method.toUpperCase()} ${path}`, operation]),
  );
}

/** The scopes each operation of `document` asks for, as its `security` (or the root's) says. */
export function scopesByOperation(document: SecurityDescription): ScopesByOperation {
  const waysThrough = (operation: unknown) =>
    normalised(requirementsOf(document, operation).map((requirement) => Object.values(requirement).flat()));
  return Object.fromEntries(operationsOf(document).map(([key, operation]) => [key, waysThrough(operation)]));
}

/** Every scope `document` names anywhere in its security requirements, once each, sorted. */
export function scopesNamedIn(document: SecurityDescription): string[] {
  return [...new Set(Object.values(scopesByOperation(document)).flat(2))].sort();
}

/** Scheme names a security requirement uses that `components.securitySchemes` does not define. */
export function undefinedSecuritySchemes(document: SecurityDescription): string[] {
  const defined = Object.keys(document.components?.securitySchemes ?? {});
  const root = (document.security ?? []) as Requirement[];
  const ofOperations = operationsOf(document).flatMap(([, operation]) => requirementsOf(document, operation));
  const requirements = [...root, ...ofOperations];
  const named = new Set(requirements.flatMap((requirement) => Object.keys(requirement)));
  return [...named].filter((name) => !defined.includes(name));
}

/** Operations that say nothing of security, themselves or through the root: a reader cannot tell if they are open. */
export function operationsWithoutSecurity(document: SecurityDescription): string[] {
  if (document.security !== undefined) return [];
  return operationsOf(document)
    .filter(([, operation]) => (operation as { security?: unknown }).security === undefined)
    .map(([key]) => key);
}

type Guard = (ctx: unknown, next: () => Promise<unknown>) => Promise<unknown>;

/** A service's access control that lets everything through, and remembers the scopes each of its guards asks for. */
export interface RecordingAccess {
  readonly enabled: true;
  readonly authenticate: Guard;
  require(...scopes: [string, ...string[]]): Guard;
}

/** What this needs of a @koa/router Router: its layers. */
export interface RouterLayers {
  readonly stack: readonly RouteLayer[];
}

interface RouteLayer {
  readonly path: string | RegExp;
  readonly methods: readonly string[];
  readonly stack: readonly unknown[];
}

/** An access control for `build`, and the scopes each guard it handed out asks for. */
function recordingAccess(): { access: RecordingAccess; asked: Map<unknown, readonly string[]> } {
  const asked = new Map<unknown, readonly string[]>();
  const access: RecordingAccess = {
    enabled: true,
    authenticate: (_ctx, next) => next(),
    require(...scopes) {
      const guard: Guard = (_ctx, next) => next();
      asked.set(guard, scopes);
      return guard;
    },
  };
  return { access, asked };
}

/** The ways through one route: any one scope of its guard, or none when it has no guard. */
function waysThroughRoute(layer: RouteLayer, path: string, asked: Map<unknown, readonly string[]>): string[][] {
  const guards = layer.stack.filter((middleware) => asked.has(middleware));
  if (guards.length > 1) throw new Error(`${path} has ${guards.length} scope guards; one says all its ways through`);
  return normalised((guards.length === 1 ? asked.get(guards[0])! : []).map((scope) => [scope]));
}

/**
 * "GET /api/orders/{id}" → the scopes its route's guard asks for, each one a
 * way through on its own (a guard lets in a token with any one of them); none
 * for a route without a guard. `build` makes the routers with the access
 * control it is given, as a service's app does.
 */
export function scopesByRoute(build: (access: RecordingAccess) => readonly RouterLayers[]): ScopesByOperation {
  const { access, asked } = recordingAccess();
  const routes = build(access).flatMap((router) => router.stack.filter((layer) => layer.methods.length > 0));
  return Object.fromEntries(
    routes.flatMap((layer) => {
      const path = String(layer.path)
        .replace(/:(\w+)/g, '{$1}')
        .replace(/\/$/, '');
      const waysThrough = waysThroughRoute(layer, path, asked);
      return layer.methods.filter((method) => method !== 'HEAD').map((method) => [`${method} ${path}`, waysThrough]);
    }),
  );
}
