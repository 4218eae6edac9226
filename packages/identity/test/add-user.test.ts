import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readUsersFile, verifyPassword } from '../src';
import { scratchFolder } from '@commerce/identity/testing';

const SCRIPT = fileURLToPath(new URL('../src/add-user-main.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

describe('pnpm identity:add-user', function () {
  this.timeout(30_000);
  let files: ReturnType<typeof scratchFolder>;
  beforeEach(() => (files = scratchFolder()));
  afterEach(() => files.remove());

  /** The command as pnpm runs it, with `input` on its standard input (a pipe, not a terminal). */
  function addUser(args: readonly string[], input = '') {
    const { status, stdout, stderr } = spawnSync(process.execPath, ['--import', TSX, SCRIPT, ...args], {
      input,
      encoding: 'utf8',
      env: { ...process.env, IDENTITY_USERS_FILE: files.usersFile },
    });
    return { status, stdout, stderr: stderr.split('\n').filter(Boolean) };
  }

  it('adds a user from a password on standard input, to a users file only its owner may read', async () => {
    const added = addUser(['alice', '--role', 'stock-clerk,order-manager', '--password-stdin'], 'a long password\n');
    expect(added.status, added.stderr.join('\n')).to.equal(0);
    expect(added.stdout).to.match(/^Added alice \(stock-clerk, order-manager\) in .*users\.json\./);
    expect(statSync(files.usersFile).mode & 0o777).to.equal(0o600);
    const [alice] = readUsersFile(files.usersFile);
    expect(alice).to.deep.include({ username: 'alice', roles: ['stock-clerk', 'order-manager'] });
    expect(alice!.passwordHash).to.match(/^scrypt\$N=32768,r=8,p=1\$/);
    expect(await verifyPassword('a long password', alice!.passwordHash)).to.equal(true);
    expect(await verifyPassword('a long password\n', alice!.passwordHash)).to.equal(false);
  });

  it('updates a user of that name, keeping the others', async () => {
    addUser(['alice', '--role', 'admin', '--password-stdin'], 'the first password');
    addUser(['bob', '--role', 'stock-clerk', '--password-stdin'], 'bob’s own password');
    const updated = addUser(['alice', '--role=order-manager', '--password-stdin'], 'the second password');
    expect(updated.status).to.equal(0);
    expect(updated.stdout).to.match(/^Updated alice \(order-manager\)/);
    const users = readUsersFile(files.usersFile);
    expect(users.map(({ username, roles }) => ({ username, roles }))).to.deep.equal([
      { username: 'alice', roles: ['order-manager'] },
      { username: 'bob', roles: ['stock-clerk'] },
    ]);
    expect(await verifyPassword('the second password', users[0]!.passwordHash)).to.equal(true);
  });

  const refusals: [string, string[], string, RegExp][] = [
    ['no username', ['--role', 'admin', '--password-stdin'], 'a long password', /the username is missing/],
    [
      'a username in capitals',
      ['Alice', '--role', 'admin', '--password-stdin'],
      'a long password',
      /the username "Alice" must be 1 to 64 lower-case/,
    ],
    [
      'no role',
      ['alice', '--password-stdin'],
      'a long password',
      /--role is missing: one or more of stock-clerk, order-manager, admin/,
    ],
    [
      'an unknown role',
      ['alice', '--role', 'admin,owner', '--password-stdin'],
      'a long password',
      /unknown role "owner"; known: stock-clerk, order-manager, admin/,
    ],
    ['an unknown option', ['alice', '--role', 'admin', '--pasword-stdin'], '', /unknown option --pasword-stdin/],
    [
      'a short password',
      ['alice', '--role', 'admin', '--password-stdin'],
      'short\n',
      /the password must be at least 12 characters/,
    ],
    [
      'a password piped without --password-stdin',
      ['alice', '--role', 'admin'],
      'a long password',
      /standard input is not a terminal: pass the password with --password-stdin/,
    ],
  ];
  for (const [what, args, input, message] of refusals) {
    it(`refuses ${what} in one line, exiting 1, and writes nothing`, () => {
      const refused = addUser(args, input);
      expect(refused.status).to.equal(1);
      expect(refused.stderr, refused.stderr.join('\n')).to.have.length(1);
      expect(refused.stderr[0])
        .to.match(/^identity:add-user: /)
        .and.match(message);
      expect(existsSync(files.usersFile)).to.equal(false);
    });
  }

  it('refuses to add to a users file others may read, and leaves it as it was', () => {
    writeFileSync(files.usersFile, '[]', { mode: 0o600 });
    chmodSync(files.usersFile, 0o644);
    const refused = addUser(['alice', '--role', 'admin', '--password-stdin'], 'a long password');
    expect(refused.status).to.equal(1);
    expect(refused.stderr).to.have.length(1);
    expect(refused.stderr[0]).to.match(/can be read or written by other users \(mode 644\); chmod 600 it\./);
    expect(readFileSync(files.usersFile, 'utf8')).to.equal('[]');
  });
});
