import { PosClient, type PosClientOptions } from './pos-client.ts';
import type { PosType } from './pos-types.ts';

/** One client per POS type, created on first use. */
export class PosClients {
  private readonly clients = new Map<string, PosClient>();

  constructor(private readonly opts: PosClientOptions) {}

  for(type: PosType): PosClient {
    let client = this.clients.get(type.code);
    if (!client) {
      client = new PosClient(type, this.opts);
      this.clients.set(type.code, client);
    }
    return client;
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.close()));
    this.clients.clear();
  }
}
