import { join } from 'node:path';
import { startSimulator, type Simulator } from '../../pos-simulator/src/index.ts';
import { loadOrCreateSelfSigned } from '../lib/tls.ts';
import type { PosType } from '../pos/pos-types.ts';
import { rememberedPort, sandboxFile, startOnRememberedPort } from './ports.ts';

export type { Simulator };

// The sandbox's POS: the reference simulator, in-process on its own HTTPS port, its state kept in
// the data directory so open orders survive a restart. It presents the data directory's
// certificate, which the sandbox POS types trust explicitly. It keeps its port across restarts (ports.ts).

export async function startSandboxSimulator(dataDir: string): Promise<Simulator> {
  const tls = await loadOrCreateSelfSigned(dataDir);
  return startOnRememberedPort(rememberedPort(sandboxFile(dataDir), 'posSimulator'), (port) =>
    startSimulator({ port, stateFile: join(dataDir, 'pos-sim-state.json'), tls: { key: tls.key, cert: tls.cert }, seed: true }));
}

/** Two built-in POS types over the simulator: immediate and deferred payment confirmation. */
export function sandboxPosTypes(sim: Simulator): PosType[] {
  const common = { baseUrl: sim.baseUrl, apiKey: sim.apiKey, billRetrieval: true, paymentForwarding: true, ca: sim.ca };
  return [
    { code: 'simulator', name: 'Tableside POS simulator', paymentConfirmation: 'immediate', ...common },
    { code: 'simulator-deferred', name: 'Tableside POS simulator (deferred confirmation)', paymentConfirmation: 'deferred', ...common },
  ];
}
