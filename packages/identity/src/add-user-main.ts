import { existsSync } from 'node:fs';
import { text } from 'node:stream/consumers';
import { addUser, checkPassword, parseAddUserArgs, USAGE } from './add-user';
import { loadConfig } from './config';
import { readUsersFile } from './users-file';

/** Reads a line at the terminal without showing it: the terminal is put in raw mode and nothing is echoed. */
function readHidden(prompt: string): Promise<string> {
  const input = process.stdin;
  process.stderr.write(prompt);
  input.setRawMode(true);
  input.resume();
  input.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const character of chunk) {
        if (character === '\r' || character === '\n') return done();
        if (character === '\u0003' || character === '\u0004') return done(new Error('cancelled'));
        if (character === '\u007f' || character === '\b') typed = [...typed].slice(0, -1).join('');
        else typed += character;
      }
    };
    input.on('data', onData);
  });
}

async function passwordOf(fromStdin: boolean): Promise<string> {
  if (fromStdin) return (await text(process.stdin)).replace(/\r?\n$/, '');
  if (!process.stdin.isTTY)
    throw new Error('standard input is not a terminal: pass the password with --password-stdin');
  const password = checkPassword(await readHidden('Password: '));
  if ((await readHidden('Repeat it: ')) !== password) throw new Error('the two passwords differ');
  return password;
}

/** `pnpm identity:add-user`: the users file is the one the service reads (IDENTITY_USERS_FILE). */
try {
  if (process.argv.includes('--help')) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const request = parseAddUserArgs(process.argv.slice(2));
  const { usersFile } = loadConfig();
  // A broken file is refused before the password is asked for.
  if (existsSync(usersFile)) readUsersFile(usersFile);
  const password = await passwordOf(request.passwordFromStdin);
  const done = await addUser(usersFile, request, password);
  process.stdout.write(
    `${done === 'added' ? 'Added' : 'Updated'} ${request.username} (${request.roles.join(', ')}) in ${usersFile}. Running identity services reload it by themselves (SIGHUP makes sure).\n`,
  );
} catch (error) {
  process.stderr.write(`identity:add-user: ${(error as Error).message.split('\n')[0]} (--help says how)\n`);
  process.exit(1);
}
