package conversations_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/conversations"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/seed"
)

func checkCounters(t *testing.T, db *sqlx.DB) {
	t.Helper()
	ms, err := seed.CheckCounters(context.Background(), db)
	if err != nil || len(ms) > 0 {
		t.Errorf("CheckCounters = %v, %v, want no mismatches", ms, err)
	}
}

func fieldOf(err error) string {
	var ae *apperr.Error
	if errors.As(err, &ae) && len(ae.Fields) > 0 {
		return ae.Fields[0].Pointer
	}
	return ""
}

func TestStartAndSend(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "alice", "bob", "carol", "dave")
	db.MustExec(`UPDATE members SET suspended_at = now() WHERE handle = 'dave'`)
	s := conversations.NewStore(db)

	direct, err := s.Start(ctx, ids["alice"], []string{"BOB", "alice"}, "hi bob")
	if err != nil {
		t.Fatal(err)
	}
	if !direct.Created || direct.FirstMessage == nil {
		t.Fatalf("Start = %+v, want a new conversation with a first message", direct)
	}
	again, err := s.Start(ctx, ids["bob"], []string{"alice"}, "hi alice")
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != direct.ID || again.Created {
		t.Errorf("second Start of the pair = %d (created %v), want reuse of %d", again.ID, again.Created, direct.ID)
	}
	group, err := s.Start(ctx, ids["alice"], []string{"bob", "carol"}, "hi all")
	if err != nil {
		t.Fatal(err)
	}
	if group.ID == direct.ID || !cmp.Equal(group.ParticipantIDs, []int64{ids["alice"], ids["bob"], ids["carol"]}) {
		t.Errorf("group Start = %+v", group)
	}

	failures := []struct {
		name      string
		handles   []string
		wantField string
	}{
		{"unknown handle", []string{"bob", "zed"}, "/participants/1"},
		{"suspended handle", []string{"dave"}, "/participants/0"},
		{"only yourself", []string{"alice"}, "/participants"},
	}
	for _, tt := range failures {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Start(ctx, ids["alice"], tt.handles, "x")
			if !apperr.Is(err, apperr.ValidationFailed) || fieldOf(err) != tt.wantField {
				t.Errorf("%s: Start error = %v, want validation_failed on %s", tt.name, err, tt.wantField)
			}
		})
	}
	if _, err := s.Send(ctx, ids["carol"], direct.ID, "let me in", nil); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("Send by a non-participant = %v, want not_found", err)
	}
	if _, err := s.Send(ctx, ids["alice"], direct.ID, "", nil); !apperr.Is(err, apperr.ValidationFailed) {
		t.Errorf("Send of an empty body = %v, want validation_failed", err)
	}
	// An older message (fixtures) does not become the last one.
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := s.Send(ctx, ids["bob"], direct.ID, "from the past", &old); err != nil {
		t.Fatal(err)
	}
	var last int64
	if err := db.Get(&last, `SELECT last_message_id FROM conversations WHERE id = $1`, direct.ID); err != nil {
		t.Fatal(err)
	}
	if last != again.FirstMessage.ID {
		t.Errorf("last_message_id = %d, want %d", last, again.FirstMessage.ID)
	}

	type state struct {
		Handle string `db:"handle"`
		Unread int    `db:"unread_count"`
		Notes  int    `db:"notes"`
	}
	got := []state{}
	const q = `
		SELECT m.handle, cp.unread_count,
		       (SELECT count(*) FROM notifications n
		         WHERE n.recipient_id = cp.member_id AND n.conversation_id = cp.conversation_id AND n.type = 'message') AS notes
		  FROM conversation_participants cp JOIN members m ON m.id = cp.member_id
		 WHERE cp.conversation_id = $1 ORDER BY m.handle`
	if err := db.Select(&got, q, direct.ID); err != nil {
		t.Fatal(err)
	}
	// alice: "hi alice" and "from the past" from bob; bob: replied after "hi bob", so read.
	want := []state{{"alice", 2, 2}, {"bob", 0, 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("participants (-want +got):\n%s", diff)
	}
	checkCounters(t, db)
}

func TestSendConcurrent(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "alice", "bob", "carol")
	s := conversations.NewStore(db)
	c, err := s.Start(ctx, ids["alice"], []string{"bob", "carol"}, "")
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			sender := []string{"alice", "bob", "carol"}[i%3]
			if _, err := s.Send(ctx, ids[sender], c.ID, "msg", nil); err != nil {
				t.Errorf("Send %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	var msgs int
	if err := db.Get(&msgs, `SELECT count(*) FROM messages WHERE conversation_id = $1`, c.ID); err != nil {
		t.Fatal(err)
	}
	if msgs != n {
		t.Errorf("%d messages stored, want %d", msgs, n)
	}
	checkCounters(t, db)
}
