-- PAY-75: when the service last asked the POS about a pending payment in the run-up to its deadline
-- (the final check). A pending payment past its deadline whose final check never happened (every
-- process was down in that window) is asked about once more before it is failed.

ALTER TABLE payments ADD COLUMN final_check_at timestamptz;
