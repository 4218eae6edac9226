import { hashPassword } from './passwords';
import { isRole, type Role, ROLE_NAMES } from './roles';
import { saveUser, USERNAME, USERNAME_RULE } from './users-file';

export const USAGE = `usage: pnpm identity:add-user <username> --role <role>[,<role>…] [--password-stdin]
  roles: ${ROLE_NAMES.join(', ')}
  the password is asked at the terminal (not shown), or read from standard input with --password-stdin`;

/** Long enough that guessing it online, at ten tries per lock, is hopeless; bounded so scrypt's input stays small. */
const PASSWORD = { min: 12, max: 1_024 } as const;

export interface AddUserRequest {
  readonly username: string;
  readonly roles: readonly Role[];
  readonly passwordFromStdin: boolean;
}

/** The command line, or one line saying what is wrong with it. */
export function parseAddUserArgs(args: readonly string[]): AddUserRequest {
  let username: string | undefined;
  let roles: string | undefined;
  let passwordFromStdin = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--password-stdin') passwordFromStdin = true;
    else if (arg === '--role' || arg === '--roles') roles = args[++index];
    else if (arg.startsWith('--role=')) roles = arg.slice('--role='.length);
    else if (arg.startsWith('-')) throw new Error(`unknown option ${arg}`);
    else if (username === undefined) username = arg;
    else throw new Error(`one username only; ${JSON.stringify(arg)} is a second`);
  }
  if (username === undefined) throw new Error('the username is missing');
  if (!USERNAME.test(username)) throw new Error(`the username ${JSON.stringify(username)} must be ${USERNAME_RULE}`);
  if (!roles) throw new Error(`--role is missing: one or more of ${ROLE_NAMES.join(', ')}, comma-separated`);
  const named = roles.split(',').map((role) => role.trim());
  const unknown = named.find((role) => !isRole(role));
  if (unknown !== undefined)
    throw new Error(`unknown role ${JSON.stringify(unknown)}; known: ${ROLE_NAMES.join(', ')}`);
  return { username, roles: [...new Set(named as Role[])], passwordFromStdin };
}

export function checkPassword(password: string): string {
  const length = [...password].length;
  if (length < PASSWORD.min) throw new Error(`the password must be at least ${PASSWORD.min} characters`);
  if (length > PASSWORD.max) throw new Error(`the password must be at most ${PASSWORD.max} characters`);
  return password;
}

/** Hashes the password and adds or replaces the user in the users file; answers which it did. */
export async function addUser(usersFile: string, request: AddUserRequest, password: string) {
  const passwordHash = await hashPassword(checkPassword(password));
  return saveUser(usersFile, { username: request.username, passwordHash, roles: request.roles });
}
