DROP TRIGGER members_forget_timelines ON members;
DROP FUNCTION timeline_forget_members();
DELETE FROM timeline t WHERE NOT EXISTS (SELECT 1 FROM members m WHERE m.id = t.member_id);
ALTER TABLE timeline ADD CONSTRAINT timeline_member_id_fkey
    FOREIGN KEY (member_id) REFERENCES members (id) ON DELETE CASCADE;
