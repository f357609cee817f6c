-- Contact details every venue may have, whichever API created it (content API or pay-at-table).
ALTER TABLE venues ADD COLUMN address text;
ALTER TABLE venues ADD COLUMN postal_code text;
ALTER TABLE venues ADD COLUMN phone_number text;
ALTER TABLE venues ADD COLUMN email text;
