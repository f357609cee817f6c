import { TablesideError } from './errors.js';

// Which credential each path family takes (the service's security schemes), and the OAuth
// client-credentials token: fetched from POST /oauth/token when first needed, fetched again before
// it expires, and once more when the service answers 401 to it.

export interface Credentials {
  /** Content API key (`tsk_…`): /v1/rms, and /v1/webhooks when no access token is available. */
  apiKey?: string;
  /** OAuth client id and secret: access tokens for /v1/pat, /v1/pos and /v1/webhooks, refreshed as needed. */
  clientId?: string;
  clientSecret?: string;
  /** An access token you already have (`tat_…`, e.g. from `tableside token issue`); replaced from the client credentials when they are given and it expires. */
  accessToken?: string;
  /** A booking channel's API key (`tbc_…`): /v1/bc, and /v1/webhooks (the channel's own endpoints) when no partner credential is given. */
  channelKey?: string;
  /** A google-v3 channel's username and password (HTTP Basic): /v3 and /v1/feeds. */
  channelBasic?: { username: string; password: string };
}

export type Family = 'rms' | 'token' | 'webhooks' | 'channel' | 'channelBasic' | 'none';

/** The family of a documented path (`/v1/pat/venue/{venueId}/tables` → token). */
export function familyOf(schemaPath: string): Family {
  if (schemaPath.startsWith('/v1/rms/')) return 'rms';
  if (schemaPath.startsWith('/v1/pat/') || schemaPath.startsWith('/v1/pos/')) return 'token';
  if (schemaPath.startsWith('/v1/webhooks/')) return 'webhooks';
  if (schemaPath.startsWith('/v1/bc/')) return 'channel';
  if (schemaPath.startsWith('/v3/') || schemaPath.startsWith('/v1/feeds/')) return 'channelBasic';
  return 'none';
}

const base64 = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s)));

export interface TokenSourceDeps {
  baseUrl: string;
  credentials: Credentials;
  /** Sends the token request (with the client's retries: asking for a token twice is harmless). */
  send: (request: Request) => Promise<Response>;
  now: () => number;
}

/** The access token the client sends: the one given, or one from the client credentials. */
export class TokenSource {
  private token: string | null;
  private expiresAt = Infinity;
  private pending: Promise<string> | null = null;

  private readonly refreshable: boolean;

  constructor(private readonly deps: TokenSourceDeps) {
    this.token = deps.credentials.accessToken ?? null;
    this.refreshable = Boolean(deps.credentials.clientId && deps.credentials.clientSecret);
  }

  /** Client credentials were given: the token can be replaced. */
  get canRefresh(): boolean {
    return this.refreshable;
  }

  get available(): boolean {
    return this.token !== null || this.canRefresh;
  }

  /** The current token, without fetching one. */
  peek(): string | null {
    return this.token;
  }

  /** The token to send now if it needs no fetching first (there is one, and it is not about to expire), else null. */
  current(): string | null {
    return this.token !== null && (!this.refreshable || this.deps.now() < this.expiresAt) ? this.token : null;
  }

  /** The token to send now, fetched first when there is none or it is about to expire. */
  async get(): Promise<string | null> {
    const token = this.current();
    if (token !== null) return token;
    if (!this.canRefresh) return null;
    return this.fetchToken();
  }

  /** After a 401 to `rejected`: a new token (one request however many calls were refused at once), or null. */
  async refresh(rejected: string): Promise<string | null> {
    if (!this.canRefresh) return null;
    if (this.token !== null && this.token !== rejected && this.deps.now() < this.expiresAt) return this.token;
    return this.fetchToken();
  }

  private fetchToken(): Promise<string> {
    this.pending ??= this.requestToken().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async requestToken(): Promise<string> {
    const { clientId, clientSecret } = this.deps.credentials;
    const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId!, client_secret: clientSecret! });
    const started = this.deps.now();
    const response = await this.deps.send(
      new Request(`${this.deps.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: body.toString(),
      }),
    );
    if (!response.ok) throw await TablesideError.fromResponse(response);
    const json = (await response.json()) as { access_token?: unknown; expires_in?: unknown };
    if (typeof json.access_token !== 'string') throw new TablesideError({ status: response.status, code: 'invalid_response', message: 'The token endpoint answered no access_token.', requestId: response.headers.get('x-request-id'), body: json });
    const lifetimeMs = typeof json.expires_in === 'number' && json.expires_in > 0 ? json.expires_in * 1000 : 3_600_000;
    // Replaced before it expires: a minute early, or a fifth of its lifetime when that is shorter.
    this.token = json.access_token;
    this.expiresAt = started + lifetimeMs - Math.min(60_000, lifetimeMs / 5);
    return this.token;
  }
}

/**
 * The Authorization header value for a path family, or null (nothing to send); a promise only when a
 * token has to be fetched first (every call asks, so the usual answer costs no promise).
 */
export function authorizationFor(family: Family, credentials: Credentials, tokens: TokenSource): string | null | Promise<string | null> {
  switch (family) {
    case 'rms':
      return credentials.apiKey ? `Bearer ${credentials.apiKey}` : null;
    case 'token': {
      const token = tokens.current();
      if (token !== null) return `Bearer ${token}`;
      return tokens.get().then((t) => (t ? `Bearer ${t}` : null));
    }
    case 'webhooks':
      return webhooksAuthorization(credentials, tokens);
    case 'channel':
      return credentials.channelKey ? `Bearer ${credentials.channelKey}` : null;
    case 'channelBasic':
      return credentials.channelBasic ? `Basic ${base64(`${credentials.channelBasic.username}:${credentials.channelBasic.password}`)}` : null;
    default:
      return null;
  }
}

async function webhooksAuthorization(credentials: Credentials, tokens: TokenSource): Promise<string | null> {
  if (tokens.available) {
    const token = await tokens.get();
    if (token) return `Bearer ${token}`;
  }
  if (credentials.apiKey) return `Bearer ${credentials.apiKey}`;
  return credentials.channelKey ? `Bearer ${credentials.channelKey}` : null;
}
