import type { Redis } from 'ioredis';
import type { Adapter, AdapterPayload } from 'oidc-provider';

/** Models looked up through a grant: revoking the grant (sign-out, a code used twice) finds and removes them. */
const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'ClientCredentials',
  'BackchannelAuthenticationRequest',
]);

const PREFIX = 'identity:oidc:';
const key = (model: string, id: string) => `${PREFIX}${model}:${id}`;
const grantKey = (id: string) => `${PREFIX}grant:${id}`;
const uidKey = (uid: string) => `${PREFIX}sessionUid:${uid}`;

/**
 * oidc-provider's storage in Redis, which every instance of the service shares: a sign-in started on one instance
 * finishes on another, and a code consumed on one is refused by all. Each entry expires with what it stores.
 */
export function redisAdapter(redis: Redis): new (model: string) => Adapter {
  return class RedisAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const entry = key(this.model, id);
      const multi = redis.multi().set(entry, JSON.stringify(payload), 'EX', expiresIn);
      if (GRANTABLE.has(this.model) && payload.grantId) {
        const grant = grantKey(payload.grantId);
        multi.rpush(grant, entry);
        // The list lives as long as the longest-lived entry in it.
        const ttl = await redis.ttl(grant);
        if (expiresIn > ttl) multi.expire(grant, expiresIn);
      }
      if (payload.uid) multi.set(uidKey(payload.uid), id, 'EX', expiresIn);
      await multi.exec();
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const stored = await redis.get(key(this.model, id));
      return stored ? (JSON.parse(stored) as AdapterPayload) : undefined;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const id = await redis.get(uidKey(uid));
      return id ? this.find(id) : undefined;
    }

    async findByUserCode(): Promise<undefined> {
      return undefined; // no device flow
    }

    async consume(id: string): Promise<void> {
      const entry = key(this.model, id);
      const payload = await this.find(id);
      if (payload)
        await redis.set(entry, JSON.stringify({ ...payload, consumed: Math.floor(Date.now() / 1000) }), 'KEEPTTL');
    }

    async destroy(id: string): Promise<void> {
      await redis.del(key(this.model, id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      const grant = grantKey(grantId);
      const entries = await redis.lrange(grant, 0, -1);
      await redis.del(...entries, grant);
    }
  };
}
