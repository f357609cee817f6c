// One error type for the simulator: a status and the JSON body to answer. Routes throw it; the error
// handler in server.ts turns it into the reply, so every refusal is JSON.

export class SimError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: Record<string, unknown>,
  ) {
    super(typeof body.error === 'string' ? body.error : `HTTP ${statusCode}`);
  }
}

export const notFound = (what: string) => new SimError(404, { error: `${what} not found` });
export const badRequest = (message: string) => new SimError(400, { error: message });
export const conflict = (message: string) => new SimError(409, { error: message });
