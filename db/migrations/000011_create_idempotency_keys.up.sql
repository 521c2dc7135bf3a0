-- Idempotency-Key replay store (two concurrent requests with one key: one runs, one gets 409): the first request inserts its
-- row with status NULL (ON CONFLICT DO NOTHING decides the race), then records the response.
CREATE TABLE idempotency_keys (
    member_id        bigint      NOT NULL,
    key              text        NOT NULL,
    -- e.g. "POST /api/v1/posts"; the same key on another operation is a reuse.
    operation        text        NOT NULL,
    -- sha256 of the canonical request body.
    request_hash     bytea       NOT NULL,
    -- NULL while the first request is in flight.
    status           integer,
    response_headers jsonb,
    response_body    bytea,
    created_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT idempotency_keys_pkey PRIMARY KEY (member_id, key),
    CONSTRAINT idempotency_keys_member_id_fkey FOREIGN KEY (member_id) REFERENCES members (id) ON DELETE CASCADE,
    CONSTRAINT idempotency_keys_key_check CHECK (char_length(key) BETWEEN 1 AND 255),
    CONSTRAINT idempotency_keys_operation_check CHECK (char_length(operation) BETWEEN 1 AND 200),
    CONSTRAINT idempotency_keys_request_hash_check CHECK (octet_length(request_hash) = 32),
    CONSTRAINT idempotency_keys_status_check CHECK (status BETWEEN 100 AND 599),
    CONSTRAINT idempotency_keys_response_check
        CHECK (status IS NOT NULL OR (response_headers IS NULL AND response_body IS NULL))
);

-- Expiry sweep (DELETE ... WHERE created_at < now() - interval '24 hours').
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
