/**
 * The members of a transaction object, wrapped so that only one method call is
 * allowed across all of them: a unit of work run with `singleCall` has no
 * transaction around it, so a second call would not be atomic with the first.
 * Only the members the work reaches are wrapped (usually one, once).
 */
export function allowingOneCall<T extends object>(members: T): T {
  let called = false;
  const oneCall: ProxyHandler<object> = {
    get(target, property) {
      const value = Reflect.get(target, property) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (called)
          throw new Error(
            `A unit of work run with singleCall made a second call (${String(property)}): run it as a transaction instead.`,
          );
        called = true;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  };
  return new Proxy(members, {
    get(target, name) {
      const member = Reflect.get(target, name) as unknown;
      return typeof member === 'object' && member !== null ? new Proxy(member, oneCall) : member;
    },
  });
}
