// The two error shapes Google answers, so a client meets here what it meets in production:
// the Maps Booking API's `{error:{code,message,status}}` (google.rpc.Status in JSON) and the OAuth
// token endpoint's `{error, error_description}` (RFC 6749 5.2).

/** google.rpc.Code names by HTTP status, as Google's JSON errors carry them. */
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'NOT_IMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** Google's default messages, for answers scripted without a body. */
const DEFAULT_MESSAGES: Record<number, string> = {
  400: 'Request contains an invalid argument.',
  401: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
  403: 'The caller does not have permission',
  404: 'Requested entity was not found.',
  429: 'Resource has been exhausted (e.g. check quota).',
  500: 'Internal error encountered.',
  503: 'The service is currently unavailable.',
  504: 'The request timed out. Please try again.',
};

export const statusName = (code: number): string =>
  STATUS_NAMES[code] ?? (code >= 500 ? 'UNKNOWN' : code >= 400 ? 'FAILED_PRECONDITION' : 'OK');

export interface GoogleErrorBody { error: { code: number; message: string; status: string } }

export const googleErrorBody = (code: number, message = DEFAULT_MESSAGES[code] ?? `HTTP ${code}`): GoogleErrorBody =>
  ({ error: { code, message, status: statusName(code) } });

/** A refusal of the Maps Booking API; server.ts answers it as Google does. */
export class GoogleApiError extends Error {
  constructor(
    readonly statusCode: number,
    message?: string,
  ) {
    super(message ?? DEFAULT_MESSAGES[statusCode] ?? `HTTP ${statusCode}`);
  }

  get body(): GoogleErrorBody {
    return googleErrorBody(this.statusCode, this.message);
  }
}

export const invalidArgument = (message: string) => new GoogleApiError(400, message);

/** A refusal of the token endpoint: always 400 there, like Google's (RFC 6749 5.2). */
export class OAuthError extends Error {
  readonly statusCode = 400;

  constructor(
    readonly error: 'invalid_request' | 'invalid_grant' | 'invalid_scope' | 'unsupported_grant_type',
    readonly description: string,
  ) {
    super(description);
  }

  get body(): { error: string; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}
