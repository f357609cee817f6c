import { afterEach, describe, expect, it } from 'vitest';
import { trustingContext } from '../../src/lib/tls.ts';

// The one TLS context per set of CAs (src/lib/tls.ts) that the RMS client now uses for every pool.

describe('trustingContext', () => {
  const before = process.env.NODE_EXTRA_CA_CERTS;
  afterEach(() => {
    if (before === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = before;
  });

  it('ignores a NODE_EXTRA_CA_CERTS that cannot be read, as Node does, instead of failing every call made through it', () => {
    process.env.NODE_EXTRA_CA_CERTS = '/nonexistent/tableside-extra-ca.pem';
    const context = trustingContext();
    expect(context).toBeDefined();
    expect(trustingContext()).toBe(context); // built once
  });
});
