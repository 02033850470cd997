-- Written by `npm run db:functions -- portage_ledger_append_only` from src/db/functions/ (see the README there).
-- To change one of these functions again, edit its file and run that command: never edit this
-- migration once it has been applied.
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
--> statement-breakpoint
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION portage_ledger_append_only();
--> statement-breakpoint
CREATE TRIGGER ledger_transactions_append_only BEFORE UPDATE OR DELETE ON ledger_transactions
  FOR EACH ROW EXECUTE FUNCTION portage_ledger_append_only();
