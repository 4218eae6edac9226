import { createTokenVerifier } from '@platform/http';
import { expect } from 'chai';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { createKeysFileIfMissing, hashPassword } from '../src';
import { eventually, type ServiceProcess } from '@platform/test-kit';
import { issuerOf, runScript } from './process-support';
import { callWith, CLIENTS, decodePart, kidsAt, scratchFolder, STOCK, tokenFor } from '@commerce/identity/testing';
import { startResourceServer } from './resource-server';

describe('the identity service as a process', function () {
  this.timeout(60_000);
  let files: ReturnType<typeof scratchFolder>;
  let running: ServiceProcess | undefined;
  beforeEach(() => (files = scratchFolder()));
  afterEach(async () => {
    if (running) await running.stop();
    running = undefined;
    files.remove();
  });

  const envFor = () => ({
    IDENTITY_CLIENTS_FILE: files.clientsFile,
    IDENTITY_KEYS_FILE: files.keysFile,
    IDENTITY_USERS_FILE: files.usersFile,
  });
  const writeUsers = (users: unknown, mode = 0o600) => {
    writeFileSync(files.usersFile, JSON.stringify(users), { mode });
    chmodSync(files.usersFile, mode);
  };
  const REDIS = { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' };

  it('starts with JSON log lines only, no oidc-provider warning, and creates its keys file with mode 0600', async () => {
    running = runScript('main.ts', envFor());
    const issuer = await issuerOf(running);
    expect(statSync(files.keysFile).mode & 0o777).to.equal(0o600);
    // The first token request, from a browser page (Origin), is where oidc-provider's lazy notices would show.
    const client = CLIENTS[0]!;
    const response = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { origin: new URL(issuer).origin },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        resource: STOCK,
      }),
    });
    expect(response.status).to.equal(200);
    expect(response.headers.get('access-control-allow-origin')).to.equal(new URL(issuer).origin);
    expect(await running.stop()).to.equal(0);
    expect(running.stderr.filter(Boolean)).to.deep.equal([]);
    const lines = running.stdout.filter(Boolean);
    expect(
      lines.every((line) => /^\{.*\}$/.test(line)),
      lines.join('\n'),
    ).to.equal(true);
    expect(lines.map((line) => (JSON.parse(line) as { message?: string }).message)).to.include.members([
      'created the signing keys file',
      'access token issued',
      'stopped',
    ]);
    expect(lines.join('\n')).not.to.match(/oidc-provider|WARNING|NOTICE/i);
  });

  it('takes a key rotation (pnpm identity:rotate-keys) without a restart of itself or of the service verifying its tokens', async () => {
    running = runScript('main.ts', envFor());
    const issuer = await issuerOf(running);
    const stock = await startResourceServer(createTokenVerifier({ issuer, audience: STOCK }));
    try {
      const before = await tokenFor(issuer, 'inventory-sync', STOCK);
      expect((await callWith(`${stock.url}/api/products`, before)).status).to.equal(200);
      const [oldKid] = await kidsAt(issuer);

      const rotation = runScript('rotate-keys-main.ts', envFor());
      expect(await rotation.exited, rotation.stderr.join('\n')).to.equal(0);
      const newKid = /^New signing key (\S+) in /.exec(rotation.stdout[0] ?? '')?.[1];
      expect(newKid).to.be.a('string').and.not.equal(oldKid);
      expect(statSync(files.keysFile).mode & 0o777).to.equal(0o600);

      await eventually('the service publishes the new key', 10_000, async () => (await kidsAt(issuer))[0] === newKid);
      expect(await kidsAt(issuer)).to.deep.equal([newKid, oldKid]);
      const after = await tokenFor(issuer, 'inventory-sync', STOCK);
      expect(decodePart(after, 0).kid).to.equal(newKid);
      expect((await callWith(`${stock.url}/api/products`, after)).status).to.equal(200);
      expect(
        (await callWith(`${stock.url}/api/products`, before)).status,
        'a token signed before the rotation',
      ).to.equal(200);
    } finally {
      await stock.close();
    }
  });

  describe('a start that fails says so in one line and exits 1', () => {
    const cases: [string, () => Promise<Record<string, string>>, RegExp][] = [
      [
        'a missing clients file',
        async () => ({ IDENTITY_CLIENTS_FILE: `${files.folder}/none.json` }),
        /The clients file .*none\.json \(IDENTITY_CLIENTS_FILE\) does not exist/,
      ],
      [
        'a client with an unknown scope',
        async () => {
          writeFileSync(
            files.clientsFile,
            JSON.stringify([{ clientId: 'a', clientSecret: 's'.repeat(32), scopes: ['stock:admin'] }]),
          );
          return {};
        },
        /Client 1 of .*clients\.json \(a\): unknown scope "stock:admin"/,
      ],
      [
        'a clients file other users may read',
        async () => {
          chmodSync(files.clientsFile, 0o644);
          return {};
        },
        /The clients file .*clients\.json can be read or written by other users \(mode 644\); chmod 600 it\./,
      ],
      [
        'a keys file other users may read',
        async () => {
          await createKeysFileIfMissing(files.keysFile);
          chmodSync(files.keysFile, 0o604);
          return {};
        },
        /The keys file .*signing-keys\.json can be read by other users \(mode 604\); chmod 600 it\./,
      ],
      [
        'a users file other users may read',
        async () => {
          writeUsers(
            [{ username: 'alice', passwordHash: await hashPassword('a long password'), roles: ['admin'] }],
            0o644,
          );
          return REDIS;
        },
        /The users file .*users\.json can be read or written by other users \(mode 644\); chmod 600 it\./,
      ],
      [
        'a users file that is not JSON',
        async () => {
          writeFileSync(files.usersFile, '[{"username": "alice",', { mode: 0o600 });
          return REDIS;
        },
        /The users file .*users\.json is not valid JSON/,
      ],
      [
        'a user with an unknown role',
        async () => {
          writeUsers([{ username: 'alice', passwordHash: await hashPassword('a long password'), roles: ['owner'] }]);
          return REDIS;
        },
        /User 1 of .*users\.json \(alice\): unknown role "owner"; known: stock-clerk, order-manager, admin\./,
      ],
      [
        'a user whose password is not a scrypt hash',
        async () => {
          writeUsers([{ username: 'alice', passwordHash: 'plain text', roles: ['admin'] }]);
          return REDIS;
        },
        /User 1 of .*users\.json \(alice\): passwordHash must be a scrypt hash/,
      ],
      [
        'a username listed twice',
        async () => {
          const passwordHash = await hashPassword('a long password');
          writeUsers([
            { username: 'alice', passwordHash, roles: ['admin'] },
            { username: 'alice', passwordHash, roles: ['stock-clerk'] },
          ]);
          return REDIS;
        },
        /User 2 of .*users\.json \(alice\): username is listed twice\./,
      ],
      [
        'staff without REDIS_URL',
        async () => {
          writeUsers([{ username: 'alice', passwordHash: await hashPassword('a long password'), roles: ['admin'] }]);
          return { REDIS_URL: '' };
        },
        /has staff, who sign in through sessions every instance must share: set REDIS_URL/,
      ],
      [
        'an ISSUER with a trailing slash',
        async () => ({ ISSUER: 'https://api.example.test/identity/' }),
        /ISSUER must be a URL as written in canonical form .* no .* trailing slash/,
      ],
      [
        'an ACCESS_TOKEN_TTL_SECONDS out of range',
        async () => ({ ACCESS_TOKEN_TTL_SECONDS: '5' }),
        /ACCESS_TOKEN_TTL_SECONDS must be an integer from 10 to 86400/,
      ],
      [
        'a port already in use',
        async () => {
          const taken = net.createServer().listen(0, '127.0.0.1');
          await new Promise((resolve) => taken.once('listening', resolve));
          after(() => taken.close());
          return { PORT: String((taken.address() as net.AddressInfo).port) };
        },
        /already in use/,
      ],
    ];
    for (const [what, env, message] of cases) {
      it(what, async () => {
        const failed = runScript('main.ts', { ...envFor(), ...(await env()) });
        expect(await failed.exited).to.equal(1);
        const stderr = failed.stderr.filter(Boolean);
        expect(stderr, stderr.join('\n')).to.have.length(1);
        expect(stderr[0])
          .to.match(/^identity service failed to start: /)
          .and.match(message);
      });
    }
  });
});
