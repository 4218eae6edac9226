import type { authSettings, databaseSettings, messagingSettings, serverSettings, Settings } from '@platform/runtime';

/** The settings every service with a database, a broker and tokens reads (its own come on top). */
export type ServiceSettings = Settings<
  ReturnType<typeof serverSettings> &
    ReturnType<typeof databaseSettings> &
    ReturnType<typeof messagingSettings> &
    ReturnType<typeof authSettings>
>;
