ALTER TABLE post_media
    DROP CONSTRAINT post_media_position_check,
    ADD CONSTRAINT post_media_position_check CHECK (position >= 0);
ALTER TABLE poll_options
    DROP CONSTRAINT poll_options_position_check,
    ADD CONSTRAINT poll_options_position_check CHECK (position >= 0);
ALTER TABLE listing_images
    DROP CONSTRAINT listing_images_position_check,
    ADD CONSTRAINT listing_images_position_check CHECK (position >= 0);
