-- PAY-75: the final check, when the service asks the POS once more about a pending payment before
-- failing it at its deadline. While a check runs this is when it will be over at the latest (so a
-- time ahead of now means a check in flight); once it is over, when it ended. A pending payment past
-- its deadline with none (every process was down in the run-up) is asked about before it is failed.

ALTER TABLE payments ADD COLUMN final_check_at timestamptz;
