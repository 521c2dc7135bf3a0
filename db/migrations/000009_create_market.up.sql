-- Marketplace: categories (seeded here), listings and their images.

CREATE TABLE categories (
    id       bigint  GENERATED ALWAYS AS IDENTITY,
    slug     text    NOT NULL,
    name     text    NOT NULL,
    -- Display order.
    position integer NOT NULL,
    CONSTRAINT categories_pkey PRIMARY KEY (id),
    CONSTRAINT categories_slug_key UNIQUE (slug),
    CONSTRAINT categories_slug_check CHECK (slug ~ '^[a-z0-9-]{1,40}$'),
    CONSTRAINT categories_name_check CHECK (char_length(name) BETWEEN 1 AND 100)
);

INSERT INTO categories (slug, name, position) VALUES
    ('electronics', 'Electronics', 1),
    ('furniture', 'Furniture', 2),
    ('clothing', 'Clothing', 3),
    ('vehicles', 'Vehicles', 4),
    ('books', 'Books', 5),
    ('sports', 'Sports', 6),
    ('home-garden', 'Home & Garden', 7),
    ('toys', 'Toys', 8),
    ('other', 'Other', 9);

CREATE TABLE listings (
    id          bigint      GENERATED ALWAYS AS IDENTITY,
    seller_id   bigint      NOT NULL,
    category_id bigint      NOT NULL,
    title       text        NOT NULL,
    description text        NOT NULL DEFAULT '',
    -- Price in the currency's minor unit (cents); amount = price_minor / 10^exponent.
    price_minor bigint      NOT NULL,
    -- ISO 4217.
    currency    text        NOT NULL,
    condition   text        NOT NULL,
    city        text        NOT NULL,
    region      text,
    -- ISO 3166-1 alpha-2.
    country     text        NOT NULL,
    status      text        NOT NULL DEFAULT 'active',
    created_at  timestamptz NOT NULL DEFAULT now(),
    search_tsv  tsvector    GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', title), 'A') || setweight(to_tsvector('simple', description), 'B')
    ) STORED,
    CONSTRAINT listings_pkey PRIMARY KEY (id),
    CONSTRAINT listings_seller_id_fkey FOREIGN KEY (seller_id) REFERENCES members (id) ON DELETE CASCADE,
    CONSTRAINT listings_category_id_fkey FOREIGN KEY (category_id) REFERENCES categories (id) ON DELETE RESTRICT,
    CONSTRAINT listings_title_check CHECK (char_length(title) BETWEEN 1 AND 200),
    CONSTRAINT listings_description_check CHECK (char_length(description) <= 5000),
    CONSTRAINT listings_price_minor_check CHECK (price_minor >= 0),
    CONSTRAINT listings_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
    CONSTRAINT listings_condition_check CHECK (condition IN ('new', 'like_new', 'good', 'fair', 'poor')),
    CONSTRAINT listings_city_check CHECK (char_length(city) BETWEEN 1 AND 100),
    CONSTRAINT listings_region_check CHECK (char_length(region) BETWEEN 1 AND 100),
    CONSTRAINT listings_country_check CHECK (country ~ '^[A-Z]{2}$'),
    CONSTRAINT listings_status_check CHECK (status IN ('active', 'pending', 'sold'))
);

-- Market, newest first; by category; by price.
CREATE INDEX listings_created_at_id_idx ON listings (created_at DESC, id DESC);
CREATE INDEX listings_category_id_created_at_id_idx ON listings (category_id, created_at DESC, id DESC);
CREATE INDEX listings_price_minor_id_idx ON listings (price_minor, id);
-- Market and global search: search_tsv @@ websearch_to_tsquery('simple', $1).
CREATE INDEX listings_search_tsv_idx ON listings USING gin (search_tsv);

CREATE TABLE listing_images (
    listing_id bigint  NOT NULL,
    position   integer NOT NULL,
    url        text    NOT NULL,
    width      integer NOT NULL,
    height     integer NOT NULL,
    alt        text,
    CONSTRAINT listing_images_pkey PRIMARY KEY (listing_id, position),
    CONSTRAINT listing_images_listing_id_fkey FOREIGN KEY (listing_id) REFERENCES listings (id) ON DELETE CASCADE,
    CONSTRAINT listing_images_position_check CHECK (position >= 0),
    CONSTRAINT listing_images_url_check CHECK (char_length(url) BETWEEN 1 AND 2048),
    CONSTRAINT listing_images_width_check CHECK (width > 0),
    CONSTRAINT listing_images_height_check CHECK (height > 0),
    CONSTRAINT listing_images_alt_check CHECK (char_length(alt) <= 1500)
);
