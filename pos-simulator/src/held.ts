// Requests a simulator holds back on purpose (a scripted hang, a slow answer), let go when it closes
// so that closing never waits for them. Shared with the RMS and Maps Booking API simulators.

import type { FastifyRequest } from 'fastify';

export class HeldRequests {
  /** Requests that will never be answered; their sockets are destroyed on release. */
  readonly parked = new Set<FastifyRequest>();
  private readonly sleeping = new Set<{ timer: NodeJS.Timeout; done: () => void }>();

  /** Never answers the request (the promise never settles); release() drops its connection. */
  park(request: FastifyRequest): Promise<never> {
    this.parked.add(request);
    request.raw.on('close', () => this.parked.delete(request));
    return new Promise<never>(() => {});
  }

  /** Resolves after ms, or at once on release. */
  readonly sleep = (ms: number): Promise<void> => new Promise<void>((done) => {
    const entry = { timer: setTimeout(() => { this.sleeping.delete(entry); done(); }, ms), done };
    this.sleeping.add(entry);
  });

  /** Ends every sleep and drops every parked request: the simulator is closing. */
  release(): void {
    for (const s of this.sleeping) {
      clearTimeout(s.timer);
      s.done();
    }
    this.sleeping.clear();
    for (const request of this.parked) request.raw.socket?.destroy();
  }
}
