import type { FastifyRequest } from 'fastify';
import pino, { type Logger, type LoggerOptions } from 'pino';

// JSON logs (pino). Secrets never reach a log line (DES-014): credentials live in headers, which
// are not logged, and are redacted by path wherever an object that may hold one is logged; the
// onboarding link's secret `t` is cut from logged URLs.

export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  '*.authorization',
  'apiKey',
  '*.apiKey',
  'accessToken',
  '*.accessToken',
  'access_token',
  '*.access_token',
  'clientSecret',
  '*.clientSecret',
  'client_secret',
  '*.client_secret',
  'secret',
  '*.secret',
  'token',
  '*.token',
  'password',
  '*.password',
];

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { pid: process.pid, service: 'tableside' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}

/** The URL as logged: query parameters that carry secrets are replaced. */
export function loggableUrl(url: string): string {
  return url.replace(/([?&](?:t|token|access_token|client_secret|api_key)=)[^&#]*/gi, '$1[redacted]');
}

export function requestSummary(request: FastifyRequest) {
  return { method: request.method, url: loggableUrl(request.url), ip: request.ip };
}
