ALTER INDEX posts_search_keys_idx SET (fastupdate = off);
ALTER INDEX posts_search_keys_idx RESET (gin_pending_list_limit);
SELECT gin_clean_pending_list('posts_search_keys_idx');
