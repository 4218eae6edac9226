/**
 * The members of a transaction object, wrapped so that only one method call is
 * allowed across all of them: a unit of work run with `singleCall` has no
 * transaction around it, so a second call would not be atomic with the first.
 */
export function allowingOneCall<T extends object>(members: T): T {
  let called = false;
  const guard = <M extends object>(member: M): M =>
    new Proxy(member, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (called) throw new Error(`A unit of work run with singleCall made a second call (${String(property)}): run it as a transaction instead.`);
          called = true;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  return Object.fromEntries(Object.entries(members).map(([name, member]) => [name, guard(member as object)])) as T;
}
