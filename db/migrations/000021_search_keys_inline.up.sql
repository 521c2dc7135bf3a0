-- search_keys as one expression PostgreSQL can inline (issue 8). Its first form held a subquery
-- (ARRAY(SELECT … FROM unnest(…))), which PostgreSQL never inlines: every insert into posts,
-- listings or jobs, and every update of such a row that is not HOT, ran it as an SQL function, set
-- up again in each statement, a cost every insert of a post paid (docs/performance-journal.md,
-- "search_keys inlined").
--
-- The keys are the same, so the indexes stay valid without a rebuild: a tsvector from to_tsvector
-- or array_to_tsvector of a tsquery's lexemes never holds a space in a lexeme (the parser splits
-- words on white space), and an empty tsvector still gives no key; both forms agreed on every row
-- of the benchmark's data set (same journal entry). Not STRICT: PostgreSQL inlines a STRICT
-- function only when its body is strict as a whole, which the CASE is not; a NULL word list still
-- gives NULL.
CREATE OR REPLACE FUNCTION search_keys(bucket bigint, words tsvector) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN words = ''::tsvector THEN '{}'::text[]
                ELSE string_to_array(bucket::text || ':' || array_to_string(tsvector_to_array(words), ' ' || bucket::text || ':'), ' ')
           END;
