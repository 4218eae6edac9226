import type { IncomingMessage } from 'node:http';
import { invalidRequest } from '../stripe-error';

/** A request's parameters as Stripe's bracket notation nests them: `metadata[order_id]`, `enabled_events[0]`. */
export type FormParams = { [name: string]: FormValue };
export type FormValue = string | FormValue[] | FormParams;

/** Largest form body read; Stripe's own requests are a few hundred bytes. */
export const FORM_LIMIT_BYTES = 64 * 1024;

/** `a[b][0]` → ['a', 'b', '0']; undefined for a name that is not bracket notation. */
function pathOf(name: string): string[] | undefined {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name);
  if (!match) return undefined;
  return [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((part) => part[1]!)];
}

/** Puts `value` at `path` inside `into`; an empty or numeric segment appends to (or indexes) an array. */
function place(into: FormParams | FormValue[], path: readonly string[], value: string, name: string): void {
  const [head, ...rest] = path as [string, ...string[]];
  const isList = Array.isArray(into);
  const key = isList ? (head === '' ? into.length : Number(head)) : head;
  if (isList && !/^\d*$/.test(head)) throw invalidRequest(`Invalid array: ${name}`, { param: name });
  const slot = (into as Record<string | number, FormValue | undefined>)[key];
  if (rest.length === 0) {
    if (slot !== undefined && typeof slot !== 'string')
      throw invalidRequest(`Invalid ${name}: given twice`, { param: name });
    (into as Record<string | number, FormValue>)[key] = value;
    return;
  }
  const wantsList = /^\d*$/.test(rest[0]!);
  const child = slot ?? (wantsList ? [] : {});
  if (typeof child === 'string' || Array.isArray(child) !== wantsList)
    throw invalidRequest(`Invalid ${name}: mixes a value, a list and a hash`, { param: name });
  (into as Record<string | number, FormValue>)[key] = child;
  place(child, rest, value, name);
}

/** The parameters of a query string or form body, nested as Stripe nests them. */
export function parseForm(text: string): FormParams {
  const params: FormParams = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const path = pathOf(name);
    if (!path) throw invalidRequest(`Invalid parameter name: ${name}`, { param: name });
    place(params, path, value, name);
  }
  return params;
}

/** The request's body, as text, refused past FORM_LIMIT_BYTES. */
export async function formText(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > FORM_LIMIT_BYTES) throw invalidRequest(`The request body is larger than ${FORM_LIMIT_BYTES} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
