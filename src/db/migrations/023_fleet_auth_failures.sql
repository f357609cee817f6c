-- The failed-authentication limit for the whole fleet (issue 29, DES-031): failures counted per
-- client address and second, so every replica reads the same sliding minute. Written only when an
-- authentication fails (a valid credential never writes here); rows older than the minute are
-- pruned by the processes that count (src/auth/failure-limiter.ts). Additive: the release before
-- counts in memory and never reads this table.
CREATE TABLE auth_failures (
  address   text   NOT NULL,
  second    bigint NOT NULL,
  failures  integer NOT NULL,
  PRIMARY KEY (address, second)
);
