-- Content API (/v1/rms, spec 2.1-2.5, 4.2-4.5): companies, brands, the content columns of venues,
-- venue areas, and venue <-> booking channel links. Every content object belongs to the RMS partner
-- that created it (owner_partner_id, DESIGN 5). Translations (spec 2.5) live beside the base values
-- in a jsonb column per translatable table: {"<iso 639-1>": {"<field>": "<text>"}}.
-- Runs on PostgreSQL 15 and PGlite alike: no extensions.

CREATE TABLE companies (
  id                              uuid PRIMARY KEY,
  owner_partner_id                uuid NOT NULL REFERENCES partners (id),
  name                            text NOT NULL,
  legal_name                      text,
  address                         text,
  postal_code                     text,
  city                            text NOT NULL,
  country_code                    text NOT NULL,
  description                     text,
  -- seconds; 0 when not set (no minimum notice)
  min_advance_booking             integer NOT NULL DEFAULT 0 CHECK (min_advance_booking >= 0),
  min_advance_booking_cancelling  integer NOT NULL DEFAULT 0 CHECK (min_advance_booking_cancelling >= 0),
  include_source_in_notes         boolean NOT NULL DEFAULT false,
  sdk_key                         text,
  booking_message                 text,
  -- true for a company generated from the details of a venue created without one (spec 2.2)
  generated                       boolean NOT NULL DEFAULT false,
  translations                    jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at                      timestamptz NOT NULL,
  updated_at                      timestamptz NOT NULL
);
-- The partner's list, in its order (case-insensitive name, then id).
CREATE INDEX companies_owner_name ON companies (owner_partner_id, lower(name), id);

CREATE TABLE brands (
  id                 uuid PRIMARY KEY,
  owner_partner_id   uuid NOT NULL REFERENCES partners (id),
  company_id         uuid NOT NULL REFERENCES companies (id),
  name               text NOT NULL,
  logo               text,
  fb_installed       boolean,
  ig_installed       boolean,
  -- write-only fields (spec 2.3): stored for the booking widget, never answered
  widget_legal_text  text,
  booking_approach   text,
  translations       jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL
);
CREATE INDEX brands_owner_name ON brands (owner_partner_id, lower(name), id);
CREATE INDEX brands_company ON brands (company_id);

-- A venue created through the content API has an owner; one created by a pay-at-table partner has
-- none and is invisible to the content API. Existing columns keep their meaning.
ALTER TABLE venues ADD COLUMN owner_partner_id uuid REFERENCES partners (id);
ALTER TABLE venues ADD COLUMN external_id text;
ALTER TABLE venues ADD COLUMN company_id uuid REFERENCES companies (id);
ALTER TABLE venues ADD COLUMN brand_id uuid REFERENCES brands (id);
ALTER TABLE venues ADD COLUMN description text;
ALTER TABLE venues ADD COLUMN latitude double precision CHECK (latitude BETWEEN -90 AND 90);
ALTER TABLE venues ADD COLUMN longitude double precision CHECK (longitude BETWEEN -180 AND 180);
ALTER TABLE venues ADD COLUMN capacity integer CHECK (capacity >= 0);
ALTER TABLE venues ADD COLUMN url text;
ALTER TABLE venues ADD COLUMN min_advance_booking integer NOT NULL DEFAULT 0 CHECK (min_advance_booking >= 0);
ALTER TABLE venues ADD COLUMN min_advance_online_cancelling integer NOT NULL DEFAULT 0 CHECK (min_advance_online_cancelling >= 0);
ALTER TABLE venues ADD COLUMN min_covers integer NOT NULL DEFAULT 1 CHECK (min_covers >= 1);
-- null: no maximum party size set
ALTER TABLE venues ADD COLUMN max_covers integer CHECK (max_covers >= 1);
ALTER TABLE venues ADD CONSTRAINT venues_covers_order CHECK (max_covers IS NULL OR min_covers <= max_covers);
-- paymentDefinition; amounts in minor units of the venue currency (src/lib/money.ts)
ALTER TABLE venues ADD COLUMN require_credit_card boolean NOT NULL DEFAULT false;
ALTER TABLE venues ADD COLUMN deposit_type text NOT NULL DEFAULT 'fixed_price';
ALTER TABLE venues ADD COLUMN deposit_amount_minor bigint NOT NULL DEFAULT 0 CHECK (deposit_amount_minor >= 0);
ALTER TABLE venues ADD COLUMN no_show_fee_type text NOT NULL DEFAULT 'fixed_price';
ALTER TABLE venues ADD COLUMN no_show_fee_amount_minor bigint NOT NULL DEFAULT 0 CHECK (no_show_fee_amount_minor >= 0);
-- paymentGateway (null gateway: none configured)
ALTER TABLE venues ADD COLUMN payment_gateway text;
ALTER TABLE venues ADD COLUMN gateway_sdk_version text;
ALTER TABLE venues ADD COLUMN gateway_publish_key text;
ALTER TABLE venues ADD COLUMN gateway_merchant_id text;
ALTER TABLE venues ADD COLUMN fb_installed boolean NOT NULL DEFAULT false;
ALTER TABLE venues ADD COLUMN ig_installed boolean NOT NULL DEFAULT false;
ALTER TABLE venues ADD COLUMN bookable_areas boolean NOT NULL DEFAULT false;
ALTER TABLE venues ADD COLUMN booking_message text;
ALTER TABLE venues ADD COLUMN payment_policy text;
ALTER TABLE venues ADD COLUMN confirmation_message text;
ALTER TABLE venues ADD COLUMN translations jsonb NOT NULL DEFAULT '{}'::jsonb;

-- A nightly sync finds a venue by its own id: unique per partner.
CREATE UNIQUE INDEX venues_owner_external ON venues (owner_partner_id, external_id);
-- The content venue list: the partner's venues by case-insensitive name then id, and the same
-- within one country (filters[countryCode] is exact). See bench/README.md for the plans.
CREATE INDEX venues_owner_name ON venues (owner_partner_id, lower(name), id);
CREATE INDEX venues_owner_country_name ON venues (owner_partner_id, country_code, lower(name), id);
CREATE INDEX venues_company ON venues (company_id);
CREATE INDEX venues_brand ON venues (brand_id);

-- Venues bookable through a booking channel (PUT /booking-channels/{id}/link-venues).
CREATE TABLE venue_booking_channels (
  channel_id  uuid NOT NULL REFERENCES booking_channels (id),
  venue_id    uuid NOT NULL REFERENCES venues (id),
  linked_at   timestamptz NOT NULL,
  PRIMARY KEY (channel_id, venue_id)
);
CREATE INDEX venue_booking_channels_venue ON venue_booking_channels (venue_id, channel_id);

CREATE TABLE venue_areas (
  id            uuid PRIMARY KEY,
  venue_id      uuid NOT NULL REFERENCES venues (id),
  external_id   text NOT NULL,
  name          text NOT NULL,
  description   text,
  is_default    boolean NOT NULL DEFAULT false,
  translations  jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  UNIQUE (venue_id, external_id)
);
CREATE INDEX venue_areas_venue_name ON venue_areas (venue_id, lower(name), id);
-- At most one default area per venue.
CREATE UNIQUE INDEX venue_areas_one_default ON venue_areas (venue_id) WHERE is_default;
