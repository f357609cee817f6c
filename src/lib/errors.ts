// Every error the service answers on purpose is an AppError of one kind; the server's error handler
// turns it into the API family's envelope. Anything else is a bug and becomes an opaque 500.

export type ErrorKind =
  | 'bad_request'
  | 'validation'
  | 'unauthorized'
  /** 402: valid parameters, but the business said no (a booking channel's failure codes, DESIGN 8.4a). */
  | 'payment_required'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unprocessable'
  | 'rate_limited'
  | 'bad_gateway'
  | 'unavailable'
  | 'internal';

export const STATUS_OF: Record<ErrorKind, number> = {
  bad_request: 400,
  validation: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  bad_gateway: 502,
  unavailable: 503,
  internal: 500,
};

/** Field name -> readable problems, e.g. `{ amount: ['must be greater than 0'] }`. */
export type FieldProblems = Record<string, string[]>;

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly details: Record<string, unknown> | null = null,
    /** Extra response headers, e.g. Retry-After on a 429. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return STATUS_OF[this.kind];
  }
}

export const badRequest = (message: string, details: Record<string, unknown> | null = null) =>
  new AppError('bad_request', message, details);

/** A 400 naming each offending field with its problems. */
export const validationFailed = (problems: FieldProblems, message = 'The request is invalid.') =>
  new AppError('validation', message, problems);

export const unauthorized = (message: string) => new AppError('unauthorized', message);
export const forbidden = (message: string) => new AppError('forbidden', message);
export const notFound = (message: string) => new AppError('not_found', message);
export const conflict = (message: string, details: Record<string, unknown> | null = null) =>
  new AppError('conflict', message, details);
export const unprocessable = (message: string, details: Record<string, unknown> | null = null) =>
  new AppError('unprocessable', message, details);
export const badGateway = (message: string) => new AppError('bad_gateway', message);
export const rateLimited = (message: string, retryAfterSeconds: number) =>
  new AppError('rate_limited', message, null, { 'retry-after': String(retryAfterSeconds) });

/** Collects field problems so a validator can report every bad field, not only the first. */
export class ProblemList {
  private readonly problems: FieldProblems = {};

  add(field: string, problem: string): this {
    (this.problems[field] ??= []).push(problem);
    return this;
  }

  get empty(): boolean {
    return Object.keys(this.problems).length === 0;
  }

  merge(other: FieldProblems): this {
    for (const [field, list] of Object.entries(other)) for (const p of list) this.add(field, p);
    return this;
  }

  toJSON(): FieldProblems {
    return this.problems;
  }

  /** Throws a 400 when any problem was recorded. */
  throwIfAny(message?: string): void {
    if (!this.empty) throw validationFailed(this.problems, message);
  }
}
