import { loadConfig } from './config';
import { rotateKeysFile } from './rotate-keys';

/**
 * `pnpm identity:rotate-keys`: the settings the service reads (IDENTITY_KEYS_FILE, ACCESS_TOKEN_TTL_SECONDS) say which
 * file and how long old keys stay.
 */
try {
  const config = loadConfig();
  const { ring, current, dropped } = await rotateKeysFile(config.keysFile, config.accessTokenTtlSeconds);
  const published = ring.keys.slice(1).map((key) => `${key.kid} (retired ${key.retiredAt})`);
  process.stdout.write(
    [
      `New signing key ${current.kid} in ${config.keysFile}.`,
      `Still published for tokens they signed: ${published.join(', ') || 'none'}.`,
      `Dropped (their tokens have expired): ${dropped.join(', ') || 'none'}.`,
      'Running identity services watch the file and sign with the new key at once (SIGHUP reloads it too).',
      '',
    ].join('\n'),
  );
} catch (error) {
  process.stderr.write(`key rotation failed: ${(error as Error).message.split('\n')[0]}\n`);
  process.exit(1);
}
