import { ProblemError } from './problem-error';

export const MAX_NAME_CODE_POINTS = 100;

function invalidName(reason: string): ProblemError {
  return new ProblemError(400, 'VALIDATION_FAILED', 'The name in the path is invalid.', { name: [reason] });
}

/**
 * Decodes the raw path segment. @koa/router decodes params itself but, on a
 * malformed escape such as `%E0%A4%A`, quietly hands back the raw text; this
 * decodes the raw capture again so that such a name is refused, not greeted.
 */
export function decodeGreetName(rawSegment: string): string {
  let name: string;
  try {
    name = decodeURIComponent(rawSegment);
  } catch {
    throw invalidName('is not valid percent-encoded UTF-8');
  }
  // Code points, not UTF-16 units: an emoji counts as one character, as a person would count it.
  const length = [...name].length;
  if (length < 1 || length > MAX_NAME_CODE_POINTS)
    throw invalidName(`must be 1 to ${MAX_NAME_CODE_POINTS} characters long`);
  return name;
}
