import { resolve } from 'node:path';
import { parseSealingKey } from './lib/sealed.ts';

// The environment is read once, here, into a typed Config. A bad value stops the start with a
// message that names the variable (DESIGN 4); `.env.example` lists every variable with its default.

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | null;
  /** Connections each process keeps to PostgreSQL at most: pool size x replicas is the fleet's budget. */
  databasePoolMax: number;
  dataDir: string;
  tlsCertFile: string | null;
  tlsKeyFile: string | null;
  trustProxy: boolean;
  publicBaseUrl: string;
  /** Whether PUBLIC_BASE_URL was given; otherwise it follows the port the server listens on. */
  publicBaseUrlGiven: boolean;
  posTypesFile: string | null;
  paymentConfirmationTimeoutS: number;
  paymentInlineWaitMs: number;
  posTablesTtlS: number;
  orderSyncIntervalS: number;
  posTimeoutMs: number;
  rmsTimeoutMs: number;
  /** SECRETS_KEY: 32 bytes that seal partner secrets Tableside sends on; null = a key kept in the store. */
  secretsKey: Buffer | null;
  /** Partner-given URLs may point at loopback/private addresses (tests, sandbox). */
  allowPrivateTargets: boolean;
  sandbox: boolean;
  authFailureLimitPerMin: number;
  accessTokenTtlS: number;
  jobPollMs: number;
  /** Lease of the in-memory credential cache; 0 turns the cache off (every request looks its credential up). */
  authCacheLeaseMs: number;
  logLevel: string;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, `must be 1/0 or true/false, got "${raw}"`);
}

function str(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? null : raw.trim();
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = str(env, name);
  if (raw === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

function sealingKey(env: Env, name: string): Buffer | null {
  const raw = str(env, name);
  if (raw === null) return null;
  const key = parseSealingKey(raw);
  if (!key) throw new ConfigError(name, 'must be 32 bytes in base64 (e.g. `openssl rand -base64 32`)');
  return key;
}

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const port = int(env, 'PORT', 8443, 0, 65535);
  const tlsCertFile = str(env, 'TLS_CERT');
  const tlsKeyFile = str(env, 'TLS_KEY');
  if ((tlsCertFile === null) !== (tlsKeyFile === null)) {
    throw new ConfigError(tlsCertFile ? 'TLS_KEY' : 'TLS_CERT', 'must be set together with the other of TLS_CERT/TLS_KEY');
  }
  const logLevel = str(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  const givenBaseUrl = url(env, 'PUBLIC_BASE_URL', ['https:']);
  const publicBaseUrl = (givenBaseUrl ?? `https://localhost:${port}`).replace(/\/+$/, '');
  const sandbox = overrides.sandbox ?? bool(env, 'SANDBOX', false);

  const config: Config = {
    port,
    host: str(env, 'HOST') ?? '127.0.0.1',
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolMax: int(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
    dataDir: resolve(str(env, 'TABLESIDE_DATA') ?? '.tableside'),
    tlsCertFile,
    tlsKeyFile,
    trustProxy: bool(env, 'TRUST_PROXY', false),
    publicBaseUrl,
    publicBaseUrlGiven: givenBaseUrl !== null,
    posTypesFile: str(env, 'POS_TYPES'),
    paymentConfirmationTimeoutS: int(env, 'PAYMENT_CONFIRMATION_TIMEOUT_S', 120, 1, 3600),
    paymentInlineWaitMs: int(env, 'PAYMENT_INLINE_WAIT_MS', 3000, 0, 60_000),
    posTablesTtlS: int(env, 'POS_TABLES_TTL_S', 30, 0, 86_400),
    orderSyncIntervalS: int(env, 'ORDER_SYNC_INTERVAL_S', 60, 1, 86_400),
    posTimeoutMs: int(env, 'POS_TIMEOUT_MS', 10_000, 100, 120_000),
    rmsTimeoutMs: int(env, 'RMS_TIMEOUT_MS', 5000, 100, 120_000),
    secretsKey: sealingKey(env, 'SECRETS_KEY'),
    // The sandbox's simulators listen on loopback, so the sandbox allows private targets unless told otherwise.
    allowPrivateTargets: bool(env, 'ALLOW_PRIVATE_TARGETS', sandbox),
    sandbox,
    authFailureLimitPerMin: int(env, 'AUTH_FAILURE_LIMIT_PER_MIN', 60, 1, 1_000_000),
    accessTokenTtlS: int(env, 'ACCESS_TOKEN_TTL_S', 3600, 60, 31_536_000),
    jobPollMs: int(env, 'JOB_POLL_MS', 1000, 10, 60_000),
    authCacheLeaseMs: int(env, 'AUTH_CACHE_LEASE_MS', 3000, 0, 60_000),
    logLevel,
  };
  return { ...config, ...overrides };
}

/** What each variable means, for `.env.example`, the README and `tableside --help`. */
export const CONFIG_DOC: Array<[variable: string, meaning: string]> = [
  ['PORT', 'HTTPS port (default 8443)'],
  ['HOST', 'address to listen on (default 127.0.0.1; 0.0.0.0 for all interfaces)'],
  ['DATABASE_URL', 'postgres://… to use PostgreSQL; unset: the embedded PGlite store in TABLESIDE_DATA'],
  ['DATABASE_POOL_MAX', 'connections each process opens to PostgreSQL at most (default 10); the replicas together must stay under PostgreSQL\'s max_connections'],
  ['TABLESIDE_DATA', 'data directory of the embedded store, certificate and sandbox files (default ./.tableside)'],
  ['TLS_CERT / TLS_KEY', 'PEM certificate and key files; unset: a self-signed certificate for localhost is generated once'],
  ['TRUST_PROXY', '1 behind a TLS-terminating proxy: X-Forwarded-Proto must be https, X-Forwarded-For gives the client address'],
  ['PUBLIC_BASE_URL', 'https base URL used in onboarding links (default https://localhost:PORT)'],
  ['POS_TYPES', 'path of the JSON file listing POS types (docs/pos-partner-contract.md)'],
  ['PAYMENT_CONFIRMATION_TIMEOUT_S', 'seconds a payment may stay pending before it fails with pos_confirmation_timeout (default 120)'],
  ['PAYMENT_INLINE_WAIT_MS', 'how long a deferred payment POST waits for the POS before answering 202 (default 3000)'],
  ['POS_TABLES_TTL_S', 'age after which GET tables refreshes from the POS (default 30)'],
  ['ORDER_SYNC_INTERVAL_S', 'seconds between order syncs per connected venue (default 60)'],
  ['POS_TIMEOUT_MS', 'time limit of one call to a POS (default 10000)'],
  ['RMS_TIMEOUT_MS', 'time limit of one booking-services call to an RMS other than availability, which has 1 s (default 5000)'],
  ['SECRETS_KEY', 'base64 of 32 bytes sealing the partner secrets Tableside sends on (RMS booking-services keys); unset: a key generated once and kept in the store (set it in production so a copy of the database alone reveals nothing)'],
  ['ALLOW_PRIVATE_TARGETS', '1 lets partner-given URLs (booking services, webhook endpoints) point at loopback or private addresses (default 0; 1 in the sandbox)'],
  ['SANDBOX', '1 to run the in-process POS simulator and seed a sandbox partner'],
  ['AUTH_FAILURE_LIMIT_PER_MIN', 'failed authentications a client address may make a minute before 429 (default 60)'],
  ['ACCESS_TOKEN_TTL_S', 'lifetime of issued access tokens (default 3600)'],
  ['JOB_POLL_MS', 'longest idle wait of the durable job poller (default 1000)'],
  ['AUTH_CACHE_LEASE_MS', 'lease of the in-memory cache of checked credentials, the longest a revoke command waits for a process that stopped answering (default 3000; 0: no cache)'],
  ['LOG_LEVEL', 'fatal, error, warn, info (default), debug, trace or silent'],
];
