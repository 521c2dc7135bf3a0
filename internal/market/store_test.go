package market_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/market"
	"github.com/socialnet/socialapi/internal/members"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

func TestCreate(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	bob, err := members.CreateTx(ctx, db, members.New{Handle: "bob", Name: "Bob"})
	if err != nil {
		t.Fatal(err)
	}
	s := market.NewStore(db)
	at := time.Date(2026, 9, 2, 10, 0, 0, 0, time.UTC)
	valid := func() market.NewListing {
		return market.NewListing{Category: "sports", Title: "Road bike", Description: "56 cm", PriceMinor: 40000,
			Currency: "EUR", Condition: "good", City: "Lyon", Country: "FR", CreatedAt: &at,
			Images: []market.Image{{URL: "https://cdn.example/1.jpg", Width: 10, Height: 10}}}
	}
	l, err := s.Create(ctx, bob.ID, valid())
	if err != nil {
		t.Fatal(err)
	}
	if l.Status != "active" || !l.CreatedAt.Equal(at) || l.SellerID != bob.ID {
		t.Errorf("Create = %+v, want active, created at %v, sold by %d", l, at, bob.ID)
	}
	tests := []struct {
		name      string
		edit      func(*market.NewListing)
		wantField string
	}{
		{"unknown category", func(n *market.NewListing) { n.Category = "boats" }, "/category"},
		{"bad currency", func(n *market.NewListing) { n.Currency = "euro" }, "/currency"},
		{"bad condition", func(n *market.NewListing) { n.Condition = "mint" }, "/condition"},
		{"bad status", func(n *market.NewListing) { n.Status = "gone" }, "/status"},
		{"bad image", func(n *market.NewListing) { n.Images = append(n.Images, market.Image{URL: "u", Width: 0, Height: 1}) }, "/images/1/width"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := valid()
			tt.edit(&in)
			_, err := s.Create(ctx, bob.ID, in)
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Code != apperr.ValidationFailed || ae.Fields[0].Pointer != tt.wantField {
				t.Errorf("%s: Create error = %v, want validation_failed on %s", tt.name, err, tt.wantField)
			}
		})
	}
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM listings`); err != nil || n != 1 {
		t.Errorf("%d listings stored (%v), want 1", n, err)
	}
}
