// Service accounts the simulator knows, each allowed to act for one partner (as a Google service
// account is linked to one Partner Portal account). Only the public half of a key is kept: the
// token endpoint needs nothing else to check a JWT's signature.

import { createPublicKey, generateKeyPair, randomBytes, randomInt, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { invalidArgument } from './errors.ts';

const generateRsa = promisify(generateKeyPair);

export interface ServiceAccount {
  clientEmail: string;
  partnerId: string;
  publicKey: KeyObject;
  /** The key file's private_key_id; a JWT header naming another `kid` is refused. */
  privateKeyId: string | null;
}

export interface ServiceAccountView { clientEmail: string; partnerId: string; privateKeyId: string | null }

/** The JSON key file Google issues for a service account (IAM > Service accounts > Keys). */
export interface ServiceAccountKeyFile {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
  auth_provider_x509_cert_url: string;
  client_x509_cert_url: string;
  universe_domain: string;
}

export interface RegisterInput {
  partnerId: string;
  clientEmail: string;
  /** PEM: a public key, a certificate, or the private key itself (only its public half is kept). */
  publicKey: string;
  privateKeyId?: string;
}

export interface GenerateInput { partnerId: string; clientEmail?: string; projectId?: string }

/** Google's client ids are 21 decimal digits. */
const numericId = (digits: number) => Array.from({ length: digits }, (_, i) => randomInt(i === 0 ? 1 : 0, 10)).join('');

export const viewOf = (a: ServiceAccount): ServiceAccountView => ({ clientEmail: a.clientEmail, partnerId: a.partnerId, privateKeyId: a.privateKeyId });

export class ServiceAccounts {
  private readonly byEmail = new Map<string, ServiceAccount>();

  get(clientEmail: string): ServiceAccount | undefined {
    return this.byEmail.get(clientEmail);
  }

  list(): ServiceAccountView[] {
    return [...this.byEmail.values()].map(viewOf);
  }

  /** Adds the account, or replaces its key and partner when the email is known. */
  register(input: RegisterInput): ServiceAccountView {
    let publicKey: KeyObject;
    try {
      publicKey = createPublicKey(input.publicKey);
    } catch {
      throw invalidArgument('publicKey is not a PEM public key, certificate or private key');
    }
    if (publicKey.asymmetricKeyType !== 'rsa') throw invalidArgument('publicKey must be an RSA key (service account keys sign with RS256)');
    const account: ServiceAccount = { clientEmail: input.clientEmail, partnerId: input.partnerId, publicKey, privateKeyId: input.privateKeyId ?? null };
    this.byEmail.set(account.clientEmail, account);
    return viewOf(account);
  }

  /** A new RSA key pair for a new account, answered as the key file Google would let you download. */
  async generate(input: GenerateInput, tokenUri: string): Promise<ServiceAccountKeyFile> {
    const projectId = input.projectId ?? `tableside-sim-${randomBytes(3).toString('hex')}`;
    const clientEmail = input.clientEmail ?? `rtu-${randomBytes(4).toString('hex')}@${projectId}.iam.gserviceaccount.com`;
    const { privateKey, publicKey } = await generateRsa('rsa', { modulusLength: 2048 });
    const privateKeyId = randomBytes(20).toString('hex');
    this.register({ partnerId: input.partnerId, clientEmail, publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(), privateKeyId });
    return {
      type: 'service_account',
      project_id: projectId,
      private_key_id: privateKeyId,
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: clientEmail,
      client_id: numericId(21),
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: tokenUri,
      auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
      client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(clientEmail)}`,
      universe_domain: 'googleapis.com',
    };
  }

  remove(clientEmail: string): boolean {
    return this.byEmail.delete(clientEmail);
  }

  clear(): void {
    this.byEmail.clear();
  }
}
