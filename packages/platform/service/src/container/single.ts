import { type DependencyContainer, type InjectionToken, instanceCachingFactory } from 'tsyringe';

/** Registers what `build` makes, once, on first use. */
export function single<T>(container: DependencyContainer, token: InjectionToken<T>, build: (c: DependencyContainer) => T): void {
  container.register(token, { useFactory: instanceCachingFactory(build) });
}

/** A value for a token, registered as it is. */
export interface Binding {
  register(container: DependencyContainer): void;
}

export function bind<T>(token: InjectionToken<T>, value: T): Binding {
  return { register: (container) => void container.register(token, { useValue: value }) };
}
