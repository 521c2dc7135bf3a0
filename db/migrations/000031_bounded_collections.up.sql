-- A post has at most 10 media, a poll at most 10 options and a listing at most 10 images: the
-- maxItems the contract promises for Post.media, Poll.options and Listing.images. Positions are
-- the primary key's second column, so bounding them bounds the count.
ALTER TABLE post_media
    DROP CONSTRAINT post_media_position_check,
    ADD CONSTRAINT post_media_position_check CHECK (position BETWEEN 0 AND 9);
ALTER TABLE poll_options
    DROP CONSTRAINT poll_options_position_check,
    ADD CONSTRAINT poll_options_position_check CHECK (position BETWEEN 0 AND 9);
ALTER TABLE listing_images
    DROP CONSTRAINT listing_images_position_check,
    ADD CONSTRAINT listing_images_position_check CHECK (position BETWEEN 0 AND 9);
