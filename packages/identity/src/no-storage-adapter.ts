import type { Adapter } from 'oidc-provider';

/**
 * The provider's storage, for a service that keeps none. JWT access tokens
 * are never stored and static clients live in memory, so the only call in
 * the client-credentials flow is a `find` for a client id nobody configured
 * (an invalid_client). Anything that tries to persist state fails loudly
 * instead of keeping it in one instance of several.
 */
export class NoStorageAdapter implements Adapter {
  constructor(private readonly model: string) {}

  async upsert(): Promise<void> {
    throw new Error(`The identity service stores nothing, yet oidc-provider tried to store a ${this.model}.`);
  }

  async find(): Promise<undefined> {
    return undefined;
  }

  async findByUid(): Promise<undefined> {
    return undefined;
  }

  async findByUserCode(): Promise<undefined> {
    return undefined;
  }

  async consume(): Promise<void> {}

  async destroy(): Promise<void> {}

  async revokeByGrantId(): Promise<void> {}
}
