package search

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// hiding is what one search hides from its viewer besides what the words
// decide, read once per search when the store keeps matches for every
// caller (cache.go), so that kept matches obey blocks, mutes and
// suspensions from the next search on.
type hiding struct {
	// stream is every member whose posts the viewer's streams hide
	// (suspended, separated by a block, muted): the filter of the kept post
	// matches (visibility.Sees).
	stream visibility.Hidden
	// people is a digest of the members a block separates from the viewer
	// (either way; "" for none, most viewers). People search leaves out
	// those and the suspended (visibility.Author; a mute hides no profile),
	// so viewers with the same digest have the same people matches and share
	// them (matchKey), and a block changes the digest of both members at
	// once. A suspension is seen as every change of matches is: the members
	// shown are read afresh (hydrate.Profiles leaves the suspended out), the
	// totals follow within the ttl (cache.go).
	people string
}

// hiding reads what search hides from viewerID (visibility.HiddenCauseSQL).
func (s *Store) hiding(ctx context.Context, viewerID int64) (hiding, error) {
	var rows []struct {
		ID    int64  `db:"id"`
		Cause string `db:"cause"`
	}
	if err := sqlx.SelectContext(ctx, s.prep, &rows, visibility.HiddenCauseSQL, viewerID); err != nil {
		return hiding{}, pg.Classify(ctx, fmt.Errorf("search: read hidden members: %w", err))
	}
	h := hiding{stream: make(visibility.Hidden, len(rows))}
	var people []int64
	for _, r := range rows {
		h.stream[r.ID] = struct{}{}
		if r.Cause == "b" {
			people = append(people, r.ID)
		}
	}
	if len(people) > 0 {
		slices.Sort(people)
		d := sha256.New()
		var b [8]byte
		for _, id := range slices.Compact(people) {
			binary.BigEndian.PutUint64(b[:], uint64(id))
			d.Write(b[:])
		}
		h.people = string(d.Sum(nil))
	}
	return h, nil
}
