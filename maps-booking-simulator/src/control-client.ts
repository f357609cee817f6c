// Typed client of the simulated Google's control API, for tests and the service's sandbox. It trusts
// the simulator's certificate only: it talks to one known simulator.

import { Agent } from 'undici';
import { controlCall, type ClockView } from '../../pos-simulator/src/control-client.ts';
import type { ClockInput } from '../../pos-simulator/src/control.schemas.ts';
import type { GenerateInput, RegisterInput, ServiceAccountKeyFile, ServiceAccountView } from './accounts.ts';
import type { NotifiedBooking } from './api.fns.ts';
import type { ApiCall, TokenRequest } from './calls.ts';
import type { SettingsInput } from './control.schemas.ts';
import type { Operation, ScriptEntry, ScriptedAnswer } from './script.ts';

export interface SettingsView { tokenLifetimeS: number; clockSkewS: number }

const enc = encodeURIComponent;

export class MapsBookingControlClient {
  private readonly agent: Agent;

  constructor(
    readonly baseUrl: string,
    /** The control key, or the read-only key (then only calls, tokens and bookings can be read). */
    private readonly key: string,
    ca: string,
  ) {
    this.agent = new Agent({ connect: { ca }, connections: 4 });
  }

  private call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    return controlCall<T>(this.agent, this.baseUrl, this.key, method, path, body);
  }

  // ---- service accounts ----
  serviceAccounts(): Promise<ServiceAccountView[]> { return this.call('GET', '/_control/service-accounts'); }
  /** Knows this account's public key from now on (replacing a known one of the same email). */
  registerServiceAccount(input: RegisterInput): Promise<ServiceAccountView> { return this.call('POST', '/_control/service-accounts', input); }
  /** A new account with a fresh RSA key: the JSON key file Google would let one download. */
  generateServiceAccount(input: GenerateInput): Promise<ServiceAccountKeyFile> { return this.call('POST', '/_control/service-accounts/generate', input); }
  /** Forgets the account; its tokens stop working. */
  removeServiceAccount(clientEmail: string): Promise<void> { return this.call('DELETE', `/_control/service-accounts/${enc(clientEmail)}`); }

  // ---- tokens ----
  settings(): Promise<SettingsView> { return this.call('GET', '/_control/settings'); }
  setSettings(input: SettingsInput): Promise<SettingsView> { return this.call('PUT', '/_control/settings', input); }
  /** Every access token issued so far stops working (the next call with one answers 401). */
  revokeTokens(): Promise<{ revoked: number }> { return this.call('POST', '/_control/tokens/revoke'); }

  // ---- scripted answers ----
  /** The next `count` calls of `operation` answer so. */
  script(operation: Operation, answer: ScriptedAnswer, count = 1): Promise<ScriptEntry[]> {
    return this.call('POST', '/_control/script', { operation, answer, count });
  }
  scripts(): Promise<ScriptEntry[]> { return this.call('GET', '/_control/script'); }
  clearScript(): Promise<void> { return this.call('DELETE', '/_control/script'); }

  // ---- what was received ----
  calls(filter: { operation?: 'notifyBooking' | 'replaceAvailability'; partnerId?: string } = {}): Promise<ApiCall[]> {
    const qs = new URLSearchParams(Object.entries(filter).filter(([, v]) => v !== undefined) as Array<[string, string]>).toString();
    return this.call('GET', `/_control/calls${qs ? `?${qs}` : ''}`);
  }
  tokenRequests(): Promise<TokenRequest[]> { return this.call('GET', '/_control/tokens'); }
  /** Forgets the calls and token requests received. */
  clearCalls(): Promise<void> { return this.call('DELETE', '/_control/calls'); }
  /** What Google holds of each booking notified: every field as last accepted. */
  bookings(): Promise<NotifiedBooking[]> { return this.call('GET', '/_control/bookings'); }

  // ---- clock, reset ----
  clock(): Promise<ClockView> { return this.call('GET', '/_control/clock'); }
  setClock(input: ClockInput): Promise<ClockView> { return this.call('POST', '/_control/clock', input); }
  advanceClock(ms: number): Promise<ClockView> { return this.setClock({ advanceMs: ms }); }
  /** Forgets accounts, tokens, scripts, logs and bookings; keys, settings and the clock stay. */
  reset(): Promise<void> { return this.call('POST', '/_control/reset'); }

  close(): Promise<void> { return this.agent.close(); }
}
