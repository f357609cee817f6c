// Bodies of the control API (TypeBox: validation and the control client's types from one source).

import Type from 'typebox';
import { OPERATIONS } from './script.ts';

export const RegisterBody = Type.Object({
  partnerId: Type.String({ minLength: 1 }),
  clientEmail: Type.String({ minLength: 3 }),
  /** PEM public key, certificate, or private key (only the public half is kept). */
  publicKey: Type.String({ minLength: 1 }),
  privateKeyId: Type.Optional(Type.String({ minLength: 1 })),
}, { additionalProperties: false });

export const GenerateBody = Type.Object({
  partnerId: Type.String({ minLength: 1 }),
  clientEmail: Type.Optional(Type.String({ minLength: 3 })),
  projectId: Type.Optional(Type.String({ minLength: 1 })),
}, { additionalProperties: false });

export const SettingsBody = Type.Object({
  /** `expires_in` of the access tokens issued from now on. */
  tokenLifetimeS: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
  /** Clock difference tolerated on a JWT's iat and exp. */
  clockSkewS: Type.Optional(Type.Integer({ minimum: 0, maximum: 3600 })),
}, { additionalProperties: false });

const ScriptedAnswerBody = Type.Union([
  Type.Object({
    kind: Type.Literal('status'),
    status: Type.Integer({ minimum: 200, maximum: 599 }),
    body: Type.Optional(Type.Unknown()),
    retryAfter: Type.Optional(Type.String()),
  }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('hang') }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('slow'), delayMs: Type.Integer({ minimum: 0, maximum: 600_000 }) }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('oversized'), bytes: Type.Integer({ minimum: 1, maximum: 1024 ** 3 }) }, { additionalProperties: false }),
]);

export const ScriptBody = Type.Object({
  operation: Type.Union(OPERATIONS.map((o) => Type.Literal(o))),
  answer: ScriptedAnswerBody,
  /** How many of the next calls of the operation answer so (default 1). */
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
}, { additionalProperties: false });

export type SettingsInput = Type.Static<typeof SettingsBody>;
export type ScriptInput = Type.Static<typeof ScriptBody>;
