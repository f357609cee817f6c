-- A venue's connection to its POS location (DESIGN 6.5). A venue has at most one; a POS location
-- (pos_type, pos_venue_id) serves at most one venue ("location already connected").
-- status: 'active' (features, tables, bill answer) or 'suspended' (credentials refused or
-- disabled by the operator: omitted from analytics venue lists, DESIGN 9).

CREATE TABLE pos_connections (
  venue_id      uuid PRIMARY KEY REFERENCES venues (id),
  pos_type      text NOT NULL,
  pos_venue_id  text NOT NULL,
  status        text NOT NULL CHECK (status IN ('active', 'suspended')),
  connected_at  timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  UNIQUE (pos_type, pos_venue_id)
);
