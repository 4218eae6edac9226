import { type DependencyContainer, type InjectionToken, instanceCachingFactory } from 'tsyringe';

/** Registers what `build` makes, once, on first use. */
export function single<T>(
  container: DependencyContainer,
  token: InjectionToken<T>,
  build: (c: DependencyContainer) => T,
): void {
  container.register(token, { useFactory: instanceCachingFactory(build) });
}

/** What is registered for `token`, or undefined for a part the service runs without (a database, a broker). */
export function resolveIfRegistered<T>(container: DependencyContainer, token: InjectionToken<T>): T | undefined {
  return container.isRegistered(token) ? container.resolve(token) : undefined;
}

/** A value for a token, registered as it is. */
export interface Binding {
  register(container: DependencyContainer): void;
}

export function bind<T>(token: InjectionToken<T>, value: T): Binding {
  return { register: (container) => void container.register(token, { useValue: value }) };
}
