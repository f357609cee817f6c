-- Why a POS connection is suspended (DESIGN 9: "credentials refused or disabled by the operator").
-- 'credentials_refused': the POS answered 401/403 to the order sync; the sync keeps probing and the
-- connection comes back by itself once the POS accepts the credentials again.
-- 'operator': `tableside venue suspend`; only `tableside venue resume` brings it back.

ALTER TABLE pos_connections ADD COLUMN suspended_reason text
  CHECK (suspended_reason IN ('credentials_refused', 'operator'));
ALTER TABLE pos_connections ADD COLUMN suspended_at timestamptz;
ALTER TABLE pos_connections ADD CONSTRAINT pos_connections_suspension_consistent
  CHECK ((status = 'active') = (suspended_reason IS NULL));
