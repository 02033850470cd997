-- Refuses any change to a written ledger row: the ledger is append-only (docs/payouts.md "The
-- ledger"); a correction is a new transaction. Run by the triggers ledger_entries_append_only
-- and ledger_transactions_append_only (BEFORE UPDATE OR DELETE, each row).
CREATE OR REPLACE FUNCTION portage_ledger_append_only() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the ledger is append-only: % on % refused', TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'restrict_violation';
END
$$;
