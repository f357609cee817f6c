// A non-2xx answer as one typed error, whatever envelope the API family uses:
//   {"error":{"code":<status>,"message":…,"details":…}}   (every /v1 family, /v3 aside)
//   {"error":"invalid_token","error_description":…}        (401 on /v1/pat, RFC 6750; /oauth/token, RFC 6749)

export class TablesideError extends Error {
  override readonly name = 'TablesideError';
  /** The HTTP status. */
  readonly status: number;
  /** The envelope's `error.code` (the HTTP status as a number), or the OAuth error (`invalid_token`, `invalid_client`…). */
  readonly code: number | string;
  /** Field problems for a 400 (`{ amount: ['must be greater than 0'] }`), the business code for a channel 402 (`{ code: 'slot_unavailable' }`), else null. */
  readonly details: Record<string, unknown> | null;
  /** The `x-request-id` the service answered with: quote it when you report a problem. */
  readonly requestId: string | null;
  /** The parsed body as received. */
  readonly body: unknown;

  constructor(init: { status: number; code: number | string; message: string; details?: Record<string, unknown> | null; requestId?: string | null; body?: unknown }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? null;
    this.requestId = init.requestId ?? null;
    this.body = init.body;
  }

  /** Builds the error from an answer and its already parsed (or raw text) body. */
  static from(response: Response, body: unknown): TablesideError {
    const requestId = response.headers.get('x-request-id');
    const base = { status: response.status, requestId, body };
    if (body && typeof body === 'object' && 'error' in body) {
      const error = (body as { error: unknown; error_description?: unknown }).error;
      if (typeof error === 'string') {
        const description = (body as { error_description?: unknown }).error_description;
        return new TablesideError({ ...base, code: error, message: typeof description === 'string' ? description : error });
      }
      if (error && typeof error === 'object') {
        const e = error as { code?: unknown; message?: unknown; details?: unknown };
        return new TablesideError({
          ...base,
          code: typeof e.code === 'number' || typeof e.code === 'string' ? e.code : response.status,
          message: typeof e.message === 'string' ? e.message : `HTTP ${response.status}`,
          details: e.details && typeof e.details === 'object' ? (e.details as Record<string, unknown>) : null,
        });
      }
    }
    const text = typeof body === 'string' && body.trim() ? body.trim().slice(0, 200) : `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    return new TablesideError({ ...base, code: response.status, message: text });
  }

  /** Reads the body of an answer that is not 2xx and builds the error. */
  static async fromResponse(response: Response): Promise<TablesideError> {
    const text = await response.text().catch(() => '');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : text;
    } catch {
      // not JSON: keep the text
    }
    return TablesideError.from(response, body);
  }
}

/** What an openapi-fetch call resolves to. */
export interface CallResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful call, or a thrown TablesideError:
 * `const bill = unwrap(await client.GET('/v1/pat/venue/{venueId}/table/{tableId}/bill', { params }))`.
 */
export function unwrap<R extends CallResult>(result: R): Exclude<R['data'], undefined> {
  if (result.response.ok) return result.data as Exclude<R['data'], undefined>;
  throw TablesideError.from(result.response, result.error);
}
