import { join } from 'node:path';

/** Where the server owning a data directory publishes its admin endpoint's port and secret. */
export const adminFile = (dataDir: string) => join(dataDir, 'admin.json');
