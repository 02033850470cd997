-- Written by `npm run db:functions -- portage_audit_append_only` from src/db/functions/ (see the README there).
-- To change one of these functions again, edit its file and run that command: never edit this
-- migration once it has been applied.
-- Refuses any change to a written record of an admin's action: the audit log is append-only
-- (docs/api.md "Audit log"). Run by the trigger admin_actions_append_only (BEFORE UPDATE OR
-- DELETE on admin_actions, each row; migration 0056).
CREATE OR REPLACE FUNCTION portage_audit_append_only() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit log is append-only: % on % refused', TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'restrict_violation';
END
$$;
--> statement-breakpoint
CREATE TRIGGER admin_actions_append_only BEFORE UPDATE OR DELETE ON admin_actions
  FOR EACH ROW EXECUTE FUNCTION portage_audit_append_only();
--> statement-breakpoint
CREATE TRIGGER admin_actions_no_truncate BEFORE TRUNCATE ON admin_actions
  FOR EACH STATEMENT EXECUTE FUNCTION portage_audit_append_only();
