/** Field name → why its value was refused, as a 400's `errors` object answers it. */
export type FieldErrors = Record<string, string[]>;

/**
 * A failure the domain names. `code` is stable and comes from the service's
 * own union of codes, so an adapter's code-to-status table is checked by the
 * compiler. Knows nothing of HTTP.
 */
export abstract class DomainError<Code extends string = string> extends Error {
  abstract readonly code: Code;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends DomainError<'VALIDATION_FAILED'> {
  readonly code = 'VALIDATION_FAILED';

  constructor(readonly errors: FieldErrors) {
    super('One or more fields are invalid.');
  }
}

/** Why a value breaks a rule: the one shape every parser in every domain answers with. */
export class Invalid {
  constructor(readonly message: string) {}
}

/** A domain rule: the value it makes of its input, or why it cannot. */
export type Parser<In, Out> = (input: In) => Out | Invalid;

/**
 * Answers the parsed fields, or throws one ValidationError naming every
 * field that failed, so a client learns of all its mistakes at once.
 */
export function allValid<T extends object>(fields: { readonly [K in keyof T]: T[K] | Invalid }): T {
  let errors: FieldErrors | undefined;
  for (const [name, value] of Object.entries(fields)) {
    if (value instanceof Invalid) (errors ??= {})[name] = [value.message];
  }
  if (errors) throw new ValidationError(errors);
  return fields as T;
}
