import { readFileSync } from 'node:fs';
import { POS_TEXT_MAX } from './pos-limits.ts';

// POS types are configuration, never code (DESIGN 6.1): a JSON array in the file named by
// POS_TYPES. Each entry holds the service's credentials with a POS vendor that implements the
// partner contract, and the pay-at-table capabilities of that POS. In sandbox mode a built-in
// `simulator` type points at the in-process simulator.

export type PaymentConfirmation = 'immediate' | 'deferred';

export interface PosType {
  code: string;
  name: string;
  baseUrl: string;
  apiKey: string;
  billRetrieval: boolean;
  paymentForwarding: boolean;
  paymentConfirmation: PaymentConfirmation;
  /** Extra PEM certificate(s) to trust for this POS (a vendor's private CA); from `caFile`. */
  ca?: string;
}

export class PosTypesError extends Error {
  constructor(message: string) {
    super(`Invalid POS_TYPES: ${message}`);
    this.name = 'PosTypesError';
  }
}

const CODE = /^[a-z0-9][a-z0-9_-]{0,39}$/;

function entryName(index: number, raw: unknown): string {
  const code = raw && typeof raw === 'object' ? (raw as Record<string, unknown>).code : undefined;
  return `entry ${index}${typeof code === 'string' ? ` ("${code}")` : ''}`;
}

/** Validates one entry; the error names the entry and the field. */
export function parsePosType(raw: unknown, index: number, readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): PosType {
  const where = entryName(index, raw);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new PosTypesError(`${where} must be an object`);
  const e = raw as Record<string, unknown>;
  const str = (field: string) => {
    const v = e[field];
    if (typeof v !== 'string' || v.trim() === '') throw new PosTypesError(`${where}: ${field} must be a non-empty string`);
    return v.trim();
  };
  const bool = (field: string) => {
    if (typeof e[field] !== 'boolean') throw new PosTypesError(`${where}: ${field} must be true or false`);
    return e[field] as boolean;
  };
  const code = str('code');
  if (!CODE.test(code)) throw new PosTypesError(`${where}: code must be lowercase letters, digits, "-" or "_" (at most 40)`);
  const baseUrl = str('baseUrl').replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new PosTypesError(`${where}: baseUrl must be a URL`);
  }
  // TRN-04: the service talks to POS systems over HTTPS only.
  if (url.protocol !== 'https:') throw new PosTypesError(`${where}: baseUrl must use https`);
  const confirmation = e.paymentConfirmation;
  if (confirmation !== 'immediate' && confirmation !== 'deferred') {
    throw new PosTypesError(`${where}: paymentConfirmation must be "immediate" or "deferred"`);
  }
  let ca: string | undefined;
  if (e.caFile !== undefined) {
    const caFile = str('caFile');
    try {
      ca = readFile(caFile);
    } catch {
      throw new PosTypesError(`${where}: caFile ${caFile} cannot be read`);
    }
  }
  // The name is shown in GET /v1/pat/pos-types, whose document says at most POS_TEXT_MAX characters.
  const name = str('name');
  if (name.length > POS_TEXT_MAX || name.includes('\u0000')) {
    throw new PosTypesError(`${where}: name must be at most ${POS_TEXT_MAX} characters, without NUL`);
  }
  return {
    code,
    name,
    baseUrl,
    apiKey: str('apiKey'),
    billRetrieval: bool('billRetrieval'),
    paymentForwarding: bool('paymentForwarding'),
    paymentConfirmation: confirmation,
    ...(ca ? { ca } : {}),
  };
}

export class PosTypeRegistry {
  private readonly types = new Map<string, PosType>();

  constructor(types: PosType[] = []) {
    for (const t of types) this.add(t);
  }

  add(type: PosType): void {
    if (this.types.has(type.code)) throw new PosTypesError(`the code "${type.code}" is listed twice`);
    this.types.set(type.code, type);
  }

  get(code: string): PosType | undefined {
    return this.types.get(code);
  }

  list(): PosType[] {
    return [...this.types.values()];
  }
}

export function loadPosTypes(file: string | null): PosTypeRegistry {
  if (file === null) return new PosTypeRegistry();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new PosTypesError(`the file ${file} cannot be read`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new PosTypesError(`${file} is not valid JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(parsed)) throw new PosTypesError(`${file} must hold a JSON array of POS types`);
  // A duplicate is named here, where the entry's index is known (DES-134), not by the registry.
  const firstIndex = new Map<string, number>();
  const types = parsed.map((raw, i) => {
    const type = parsePosType(raw, i);
    const first = firstIndex.get(type.code);
    if (first !== undefined) throw new PosTypesError(`${entryName(i, raw)}: code "${type.code}" is already used by entry ${first}`);
    firstIndex.set(type.code, i);
    return type;
  });
  return new PosTypeRegistry(types);
}
