-- member_hides: for each member (viewer_id), the members their blocks and mutes hide from them,
-- one row per cause ('blocks': the viewer blocks the member, 'blocked_by': the member blocks the
-- viewer, 'mutes': the viewer mutes the member). It is blocks and mutes seen from the viewer's
-- side, kept by the triggers below in the writing transaction, so that the visibility rule reads
-- a viewer's hidden members with one index scan rather than three (docs/design.md, "Blocks,
-- mutes and suspension"). `socialapi check` compares it with blocks and mutes.
CREATE TABLE member_hides (
    viewer_id bigint NOT NULL,
    member_id bigint NOT NULL,
    cause     text   NOT NULL CHECK (cause IN ('blocks', 'blocked_by', 'mutes')),
    -- Every column in the key: the rule's read is an index-only scan.
    CONSTRAINT member_hides_pkey PRIMARY KEY (viewer_id, member_id, cause)
);

CREATE FUNCTION member_hides_blocks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        DELETE FROM member_hides
         WHERE (viewer_id, member_id, cause) IN ((OLD.blocker_id, OLD.blocked_id, 'blocks'),
                                                 (OLD.blocked_id, OLD.blocker_id, 'blocked_by'));
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO member_hides (viewer_id, member_id, cause)
        VALUES (NEW.blocker_id, NEW.blocked_id, 'blocks'), (NEW.blocked_id, NEW.blocker_id, 'blocked_by');
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION member_hides_mutes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        DELETE FROM member_hides WHERE (viewer_id, member_id, cause) = (OLD.muter_id, OLD.muted_id, 'mutes');
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO member_hides (viewer_id, member_id, cause) VALUES (NEW.muter_id, NEW.muted_id, 'mutes');
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER member_hides_blocks AFTER INSERT OR DELETE OR UPDATE OF blocker_id, blocked_id ON blocks
    FOR EACH ROW EXECUTE FUNCTION member_hides_blocks();
CREATE TRIGGER member_hides_mutes AFTER INSERT OR DELETE OR UPDATE OF muter_id, muted_id ON mutes
    FOR EACH ROW EXECUTE FUNCTION member_hides_mutes();

INSERT INTO member_hides (viewer_id, member_id, cause)
SELECT blocker_id, blocked_id, 'blocks' FROM blocks
UNION ALL SELECT blocked_id, blocker_id, 'blocked_by' FROM blocks
UNION ALL SELECT muter_id, muted_id, 'mutes' FROM mutes;
