-- pg_trgm serves the trigram index of people search (members.name + handle).
-- It is a trusted extension: the database owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
