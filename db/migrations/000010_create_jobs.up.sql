CREATE TABLE jobs (
    id               bigint      GENERATED ALWAYS AS IDENTITY,
    title            text        NOT NULL,
    company_name     text        NOT NULL,
    company_logo_url text,
    company_url      text,
    city             text,
    region           text,
    -- ISO 3166-1 alpha-2.
    country          text,
    workplace        text        NOT NULL,
    employment_type  text        NOT NULL,
    -- Salary in the currency's minor unit; either all four NULL, or min, currency and period set.
    salary_min_minor bigint,
    salary_max_minor bigint,
    salary_currency  text,
    salary_period    text,
    description      text        NOT NULL,
    apply_url        text,
    posted_at        timestamptz NOT NULL DEFAULT now(),
    expires_at       timestamptz,
    closed_at        timestamptz,
    search_tsv       tsvector    GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', title), 'A')
        || setweight(to_tsvector('simple', company_name), 'B')
        || setweight(to_tsvector('simple', description), 'C')
    ) STORED,
    CONSTRAINT jobs_pkey PRIMARY KEY (id),
    CONSTRAINT jobs_title_check CHECK (char_length(title) BETWEEN 1 AND 200),
    CONSTRAINT jobs_company_name_check CHECK (char_length(company_name) BETWEEN 1 AND 200),
    CONSTRAINT jobs_company_logo_url_check CHECK (char_length(company_logo_url) BETWEEN 1 AND 2048),
    CONSTRAINT jobs_company_url_check CHECK (char_length(company_url) BETWEEN 1 AND 2048),
    CONSTRAINT jobs_city_check CHECK (char_length(city) BETWEEN 1 AND 100),
    CONSTRAINT jobs_region_check CHECK (char_length(region) BETWEEN 1 AND 100),
    CONSTRAINT jobs_country_check CHECK (country ~ '^[A-Z]{2}$'),
    CONSTRAINT jobs_workplace_check CHECK (workplace IN ('on_site', 'hybrid', 'remote')),
    CONSTRAINT jobs_employment_type_check
        CHECK (employment_type IN ('full_time', 'part_time', 'contract', 'temporary', 'internship', 'other')),
    CONSTRAINT jobs_salary_min_minor_check CHECK (salary_min_minor >= 0),
    CONSTRAINT jobs_salary_max_minor_check CHECK (salary_max_minor >= salary_min_minor),
    CONSTRAINT jobs_salary_currency_check CHECK (salary_currency ~ '^[A-Z]{3}$'),
    CONSTRAINT jobs_salary_period_check CHECK (salary_period IN ('hour', 'day', 'week', 'month', 'year')),
    CONSTRAINT jobs_salary_check CHECK (
        (salary_min_minor IS NULL AND salary_max_minor IS NULL AND salary_currency IS NULL AND salary_period IS NULL)
        OR (salary_min_minor IS NOT NULL AND salary_currency IS NOT NULL AND salary_period IS NOT NULL)),
    CONSTRAINT jobs_description_check CHECK (char_length(description) BETWEEN 1 AND 10000),
    CONSTRAINT jobs_apply_url_check CHECK (char_length(apply_url) BETWEEN 1 AND 2048),
    CONSTRAINT jobs_expires_at_check CHECK (expires_at > posted_at),
    CONSTRAINT jobs_closed_at_check CHECK (closed_at >= posted_at)
);

-- Open jobs, newest first (the list also filters expires_at > now()).
CREATE INDEX jobs_open_posted_at_id_idx ON jobs (posted_at DESC, id DESC) WHERE closed_at IS NULL;
-- Job search: search_tsv @@ websearch_to_tsquery('simple', $1).
CREATE INDEX jobs_search_tsv_idx ON jobs USING gin (search_tsv);
