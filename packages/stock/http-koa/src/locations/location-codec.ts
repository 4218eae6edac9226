import { decodeBody, field, isNumber, isString, optional, required } from '@platform/http';
import { LocationDraft, locationFields } from '@stock/domain';
import * as t from 'io-ts';

const LocationBody = t.type({
  code: required(field('Code', isString, 'a string', locationFields.code)),
  name: required(field('Name', isString, 'a string', locationFields.name)),
  priority: optional(field('Priority', isNumber, 'an integer', locationFields.priority), undefined),
});

/** Decodes a parsed JSON object into a location draft (priority 0 when absent), or throws one ValidationError. */
export function decodeLocationBody(body: Record<string, unknown>): LocationDraft {
  const { code, name, priority } = decodeBody(LocationBody, body, 'a location');
  return LocationDraft.create({ code, name, ...(priority !== undefined && { priority }) });
}
