package main

import (
	"context"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// TestPauseAutovacuum: the driver pauses autovacuum for its run and gives
// it back when done, and a run that lets it run finds it on even after one
// that left it paused.
func TestPauseAutovacuum(t *testing.T) {
	db := pgtest.New(t).DB
	ctx := context.Background()
	// A reload reaches each backend when it next reads a command: the
	// setting is read until it shows want, for at most 5 s.
	show := func(want string) string {
		t.Helper()
		var v string
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if err := db.QueryRowContext(ctx, "SHOW autovacuum").Scan(&v); err != nil {
				t.Fatal(err)
			}
			if v == want || time.Now().After(deadline) {
				return v
			}
		}
	}
	resume, err := pauseAutovacuum(ctx, db, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(resume)
	if v := show("off"); v != "off" {
		t.Fatalf("autovacuum while paused = %s, want off", v)
	}
	// A run that lets it run, after one that died paused.
	keep, err := pauseAutovacuum(ctx, db, false)
	if err != nil {
		t.Fatal(err)
	}
	if v := show("on"); v != "on" {
		t.Fatalf("autovacuum in a run that lets it run = %s, want on", v)
	}
	keep()
	if _, err := pauseAutovacuum(ctx, db, true); err != nil {
		t.Fatal(err)
	}
	resume()
	if v := show("on"); v != "on" {
		t.Fatalf("autovacuum after the run = %s, want on", v)
	}
}
