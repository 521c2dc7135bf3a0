DROP TABLE listing_images;
DROP TABLE listings;
DROP TABLE categories;
