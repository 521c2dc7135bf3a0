package synth

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
)

// loadCategories reads the categories the migrations seeded.
func (g *gen) loadCategories(ctx context.Context, conn *sql.Conn) error {
	rows, err := conn.QueryContext(ctx, "SELECT id FROM categories ORDER BY position, id")
	if err != nil {
		return fmt.Errorf("read categories: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		g.categories = append(g.categories, id)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(g.categories) == 0 {
		return fmt.Errorf("no categories: migrate the database first")
	}
	return nil
}

var conditions = []string{"new", "like_new", "good", "fair", "poor"}

// loadMarket streams Scale.Listings listings from ~10 % of the members over
// the last 180 days, 70 % of them with 1-4 images.
func (g *gen) loadMarket(load loader) error {
	r := newRNG(g.cfg.Seed, streamMarket)
	nl := g.sc.Listings
	sellers := max(1, g.n/10)
	images := make([]uint8, nl+1)
	cols := []string{"id", "seller_id", "category_id", "title", "description", "price_minor", "currency",
		"condition", "city", "region", "country", "status", "created_at"}
	if err := load("listings", cols, func(w *rowWriter) error {
		var desc []byte
		for id := 1; id <= nl; id++ {
			r.reseed(int64(id))
			seller := 1 + int(unit(uint64(g.cfg.Seed), uint64(r.IntN(sellers)))*float64(g.n))
			item := listingItems[r.IntN(len(listingItems))]
			title := listingAdjectives[r.IntN(len(listingAdjectives))] + " " + item
			desc = paragraph(desc[:0], r, 8+r.IntN(50))
			pl := places[r.IntN(len(places))]
			price := int64(r.lognormal(8.5, 1.3)) // minor units: median ~50.00
			status := "active"
			switch v := r.Float64(); {
			case v < 0.12:
				status = "sold"
			case v < 0.17:
				status = "pending"
			}
			t := max(g.created[seller]+hour, g.now-r.Int64N(180*day))
			w.int(int64(id)).int(int64(seller)).int(g.categories[r.IntN(len(g.categories))]).str(title).
				str(string(desc)).int(price).str(pl.currency).str(conditions[r.IntN(len(conditions))]).
				str(pl.city).str(pl.region).str(pl.country).str(status).ts(t)
			w.end()
			if r.chance(0.7) {
				images[id] = uint8(1 + r.IntN(4))
			}
		}
		return w.failed()
	}); err != nil {
		return err
	}
	cols = []string{"listing_id", "position", "url", "width", "height", "alt"}
	return load("listing_images", cols, func(w *rowWriter) error {
		for id := 1; id <= nl; id++ {
			for pos := range int(images[id]) {
				w.int(int64(id)).int(int64(pos)).
					str("https://cdn.social.example/market/" + strconv.Itoa(id) + "/" + strconv.Itoa(pos) + ".jpg").
					int(1200).int(900)
				if pos == 0 {
					w.str("Front view")
				} else {
					w.null()
				}
				w.end()
			}
		}
		return w.failed()
	})
}

var (
	workplaces      = []string{"on_site", "hybrid", "remote"}
	employmentTypes = []string{"full_time", "full_time", "full_time", "part_time", "contract", "temporary", "internship", "other"}
)

// loadJobs streams Scale.Jobs job offers over the last 120 days: 60 % with
// a salary, 70 % with an expiry, 15 % closed.
func (g *gen) loadJobs(load loader) error {
	r := newRNG(g.cfg.Seed, streamJobs)
	cols := []string{"id", "title", "company_name", "company_logo_url", "company_url", "city", "region", "country",
		"workplace", "employment_type", "salary_min_minor", "salary_max_minor", "salary_currency", "salary_period",
		"description", "apply_url", "posted_at", "expires_at", "closed_at"}
	return load("jobs", cols, func(w *rowWriter) error {
		var desc []byte
		for id := 1; id <= g.sc.Jobs; id++ {
			r.reseed(int64(id))
			ci := r.IntN(len(companyNames))
			company := companyNames[ci]
			slug := asciiLower(company)
			pl := places[r.IntN(len(places))]
			wp := workplaces[r.IntN(len(workplaces))]
			w.int(int64(id)).str(jobTitles[r.IntN(len(jobTitles))]).str(company).
				str("https://cdn.social.example/logos/" + slug + ".png").str("https://" + slug + ".example.com")
			if wp == "remote" && r.chance(0.5) {
				w.null().null().null()
			} else {
				w.str(pl.city).str(pl.region).str(pl.country)
			}
			w.str(wp).str(employmentTypes[r.IntN(len(employmentTypes))])
			if r.chance(0.6) {
				lo := int64(r.between(25, 120)) * 1000 * 100
				w.int(lo)
				if r.chance(0.8) {
					w.int(lo + int64(r.between(5, 40))*1000*100)
				} else {
					w.null()
				}
				w.str(pl.currency).str("year")
			} else {
				w.null().null().null().null()
			}
			desc = paragraph(desc[:0], r, 40+r.IntN(120))
			posted := g.now - r.Int64N(120*day)
			w.str(string(desc)).str("https://" + slug + ".example.com/careers/" + strconv.Itoa(id)).ts(posted)
			if r.chance(0.7) {
				w.ts(posted + r.between(30*day, 90*day))
			} else {
				w.null()
			}
			if r.chance(0.15) {
				w.ts(min(g.now, posted+r.between(day, 60*day)))
			} else {
				w.null()
			}
			w.end()
		}
		return w.failed()
	})
}
