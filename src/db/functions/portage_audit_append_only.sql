-- Refuses any change to a written record of an admin's action: the audit log is append-only
-- (docs/api.md "Audit log"). Run by the triggers admin_actions_append_only (BEFORE UPDATE OR
-- DELETE on admin_actions, each row) and admin_actions_no_truncate (BEFORE TRUNCATE; migration 0057).
CREATE OR REPLACE FUNCTION portage_audit_append_only() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit log is append-only: % on % refused', TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'restrict_violation';
END
$$;
