-- search_keys, inlined at last (issue 8). Migration 21 wrote it as one expression so that
-- PostgreSQL would inline it, but array_to_string is STABLE (its element type's output function
-- might be), and PostgreSQL never inlines an IMMUTABLE SQL function whose body calls a function
-- that is not immutable. So every statement writing a row of posts, listings or jobs still set the
-- function up as an SQL function (its body read back from the catalog and planned) to compute the
-- row's index keys, a visible share of every post insert's CPU (fmgr_sql under FormIndexDatum in
-- `perf`; docs/performance-journal.md, "search_keys immutable").
--
-- This body uses immutable functions only. It joins the lexemes through the tsvector's own text
-- form (tsvectorout is immutable, array_out is not): 'a' 'b''c' 'd\\e', each lexeme quoted, a quote
-- inside doubled and a backslash doubled, lexemes separated by one space. A lexeme never holds a
-- space (the parser splits words on white space, and a search's words come from its tsquery), so
-- the separators ' ' become ' <bucket>:', the outer quotes go, the doubled quotes and backslashes
-- are undone, and the text is split on spaces. The keys are the same as before, so the indexes stay
-- valid without a rebuild: both bodies agreed on every row of the benchmark's data set (same
-- journal entry), and TestSearchKeysAsDefined holds it to its definition.
CREATE OR REPLACE FUNCTION search_keys(bucket bigint, words tsvector) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN words = ''::tsvector THEN '{}'::text[]
                ELSE string_to_array(bucket::text || ':' ||
                       replace(replace(left(right(replace(strip(words)::text, ''' ''', ' ' || bucket::text || ':'), -1), -1),
                                       '''''', ''''),
                               '\\', '\'),
                       ' ')
           END;

-- A session caches each index's expressions, inlined when it first reads them. A session that
-- read these indexes before this migration keeps the old, uninlined call, while its queries,
-- planned again after the change, inline the new body: they no longer match the index and search
-- falls back to scanning the table (checked: a parallel sequential scan of posts). Setting an
-- option of each index (to the value it has) makes every session read them again.
ALTER INDEX posts_search_keys_idx SET (gin_pending_list_limit = 64);
ALTER INDEX listings_search_keys_idx SET (fastupdate = off);
ALTER INDEX jobs_search_keys_idx SET (fastupdate = off);
