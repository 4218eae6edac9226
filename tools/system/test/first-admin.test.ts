import { readUsersFile, verifyPassword } from '@commerce/identity';
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backOfficeLine, createFirstAdmin } from '../src/first-admin';

describe("start:system's first admin", function () {
  this.timeout(20_000);
  let folder = '';
  beforeEach(() => (folder = mkdtempSync(join(tmpdir(), 'first-admin-'))));
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('is made on the first run, with a random password in a file only its owner may read', async () => {
    const usersFile = join(folder, 'identity-users.json');
    const passwordFile = join(folder, 'identity-admin-password.txt');
    expect(await createFirstAdmin(usersFile, passwordFile)).to.deep.equal({ username: 'admin', passwordFile });
    expect(statSync(passwordFile).mode & 0o777).to.equal(0o600);
    expect(statSync(usersFile).mode & 0o777).to.equal(0o600);
    const password = readFileSync(passwordFile, 'utf8').trim();
    expect(password).to.have.length(24);
    const [admin] = readUsersFile(usersFile);
    expect(admin).to.deep.include({ username: 'admin', roles: ['admin'] });
    expect(await verifyPassword(password, admin!.passwordHash)).to.equal(true);
  });

  it('is not made again once there is a users file, whoever is in it', async () => {
    const usersFile = join(folder, 'identity-users.json');
    writeFileSync(usersFile, '[]', { mode: 0o600 });
    expect(await createFirstAdmin(usersFile, join(folder, 'password.txt'))).to.equal(undefined);
    expect(readFileSync(usersFile, 'utf8')).to.equal('[]');
  });

  it("says where the back office is, and where the first admin's password went or how to add staff", () => {
    const admin = { username: 'admin', passwordFile: '/srv/data/identity-admin-password.txt' };
    const shown = (path: string) => path.replace('/srv/', '');
    expect(backOfficeLine('http://localhost:8000', '/srv/data/identity-users.json', admin, shown)).to.equal(
      '  the back office:      http://localhost:8000/admin/  (sign in as admin; its password, made now, is in data/identity-admin-password.txt)',
    );
    expect(backOfficeLine('http://localhost:8000', '/srv/data/identity-users.json', undefined, shown)).to.equal(
      '  the back office:      http://localhost:8000/admin/  (staff in data/identity-users.json; add one with pnpm identity:add-user <name> --role <role>)',
    );
  });
});
