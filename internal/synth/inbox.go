package synth

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
)

// Notification types, as indexes of noteNames.
const (
	noteFollow = iota
	noteReaction
	noteComment
	noteReply
	noteMention
	noteMessage
)

var noteNames = [...]string{"follow", "reaction", "comment", "reply", "mention", "message"}

// note is a notification an event left (only events of the last
// Scale.NotifyDays days leave one).
type note struct {
	recipient, actor int32
	kind, reaction   uint8
	read             int8 // 1: the recipient read it (messages: read up to it); 0: decided by age
	post, comment    int32
	conv, msg        int32
	t                int64
}

type message struct {
	conv, sender int32
	t            int64
}

// loadConversations draws Scale.Conversations conversations (88 %
// one-to-one, mostly with someone the starter follows; the rest groups of 3
// to 8) and ~Scale.Messages messages, each conversation's share log-normal,
// then streams them with the participants' read positions and unread
// counts as the conversation store keeps them.
func (g *gen) loadConversations(load loader) error {
	r := newRNG(g.cfg.Seed, streamInbox)
	nc := g.sc.Conversations
	parts := make([][]int32, nc+1)
	start := make([]int64, nc+1)
	direct := make([]string, nc+1)
	keys := map[string]bool{}
	weights := make([]float64, nc+1)
	total := 0.0
	for c := 1; c <= nc; c++ {
		r.reseed(int64(c))
		a := int32(1 + r.IntN(g.n))
		var ps []int32
		if r.chance(0.88) {
			for range 10 {
				b := int32(1 + r.IntN(g.n))
				if fe := g.following[a]; len(fe) > 0 && r.chance(0.8) {
					b = fe[r.IntN(len(fe))]
				}
				if b == a {
					continue
				}
				k := strconv.Itoa(int(min(a, b))) + ":" + strconv.Itoa(int(max(a, b)))
				if !keys[k] {
					keys[k], direct[c], ps = true, k, []int32{a, b}
					break
				}
			}
		}
		if ps == nil { // a group, or a pair that kept colliding
			ps = g.pk.fromPool(r, g.all, 3+r.IntN(6), a, []int32{a})
		}
		parts[c] = ps
		joined := int64(0)
		for _, m := range ps {
			joined = max(joined, g.created[m])
		}
		start[c] = r.between(max(joined+hour, g.now-365*day), g.now-hour)
		weights[c] = r.lognormal(0, 1.2)
		total += weights[c]
	}
	// Messages, conversation by conversation; ids follow time within each.
	msgs := make([]message, 0, g.sc.Messages+g.sc.Messages/20)
	first := make([]int32, nc+2) // index into msgs of each conversation's first message
	for c := 1; c <= nc; c++ {
		r.reseed(int64(-c))
		first[c] = int32(len(msgs))
		n := max(1, r.poisson(float64(g.sc.Messages)*weights[c]/total))
		span := min(g.now-start[c], int64(r.ExpFloat64()*float64(30*day))+hour)
		ts := make([]int64, n)
		ts[0] = start[c]
		for i := 1; i < n; i++ {
			ts[i] = start[c] + r.Int64N(span)
		}
		slices.Sort(ts)
		ps := parts[c]
		sender := ps[0]
		for i := range n {
			if i > 0 && r.chance(0.7) { // replies mostly alternate
				sender = ps[r.IntN(len(ps))]
			}
			msgs = append(msgs, message{conv: int32(c), sender: sender, t: ts[i]})
		}
	}
	first[nc+1] = int32(len(msgs))

	type participant struct {
		lastRead int64 // message id, 0: none
		unread   int
	}
	state := make([][]participant, nc+1)
	for c := 1; c <= nc; c++ {
		r.reseed(int64(c) + 1<<40)
		lo, hi := int(first[c]), int(first[c+1])
		st := make([]participant, len(parts[c]))
		for i, m := range parts[c] {
			own := 0
			for j := lo; j < hi; j++ {
				if msgs[j].sender == m {
					own = j + 1
				}
			}
			read := hi // read everything
			if r.chance(0.25) {
				read = lo + r.IntN(hi-lo+1)
			}
			st[i].lastRead = int64(max(own, read))
			if st[i].lastRead == int64(lo) && own == 0 {
				st[i].lastRead = 0
			}
			for j := lo; j < hi; j++ {
				if int64(j+1) > st[i].lastRead && msgs[j].sender != m {
					st[i].unread++
				}
			}
		}
		state[c] = st
	}

	cols := []string{"id", "direct_key", "created_at", "last_message_at", "last_message_id"}
	if err := load("conversations", cols, func(w *rowWriter) error {
		for c := 1; c <= nc; c++ {
			last := first[c+1] // id of the last message = its index + 1
			w.int(int64(c)).strOrNull(direct[c]).ts(msgs[first[c]].t).ts(msgs[last-1].t).int(int64(last))
			w.end()
		}
		return w.failed()
	}); err != nil {
		return err
	}
	cols = []string{"conversation_id", "member_id", "joined_at", "last_activity_at", "last_read_message_id", "unread_count"}
	if err := load("conversation_participants", cols, func(w *rowWriter) error {
		for c := 1; c <= nc; c++ {
			order := slices.Clone(parts[c])
			idx := make(map[int32]int, len(order))
			for i, m := range parts[c] {
				idx[m] = i
			}
			slices.Sort(order)
			for _, m := range order {
				st := state[c][idx[m]]
				w.int(int64(c)).int(int64(m)).ts(msgs[first[c]].t).ts(msgs[first[c+1]-1].t).id(st.lastRead).int(int64(st.unread))
				w.end()
			}
		}
		return w.failed()
	}); err != nil {
		return err
	}
	br := newRNG(g.cfg.Seed, streamMessage)
	cols = []string{"id", "conversation_id", "sender_id", "body", "created_at"}
	return load("messages", cols, func(w *rowWriter) error {
		var body []byte
		for i, m := range msgs {
			id := int64(i + 1)
			br.reseed(id)
			body = paragraph(body[:0], br, 2+br.IntN(25))
			w.int(id).int(int64(m.conv)).int(int64(m.sender)).str(string(body)).ts(m.t)
			w.end()
			if m.t >= g.notifyFrom {
				c := m.conv
				for k, p := range parts[c] {
					if p == m.sender {
						continue
					}
					read := int8(-1)
					if state[c][k].lastRead >= id {
						read = 1
					}
					g.notes = append(g.notes, note{recipient: p, actor: m.sender, kind: noteMessage, read: read, conv: c, msg: int32(id), t: m.t})
				}
			}
			if i%4096 == 0 {
				if err := w.failed(); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// loadNotifications streams the notifications the events left, ids in time
// order. Those older than two days are read; newer ones half the time
// (message notifications follow the conversation's read position).
func (g *gen) loadNotifications(load loader) error {
	slices.SortFunc(g.notes, func(a, b note) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.recipient, b.recipient), cmp.Compare(a.kind, b.kind))
	})
	r := newRNG(g.cfg.Seed, streamNotify)
	cols := []string{"id", "recipient_id", "type", "actor_id", "post_id", "comment_id", "conversation_id",
		"message_id", "reaction", "read_at", "created_at"}
	return load("notifications", cols, func(w *rowWriter) error {
		for i, n := range g.notes {
			id := int64(i + 1)
			r.reseed(id)
			if n.recipient == n.actor {
				return fmt.Errorf("notification %d: actor %d notified of their own action", id, n.actor)
			}
			var readAt int64
			switch {
			case n.read == 1, n.read == 0 && (n.t < g.now-2*day || r.chance(0.5)):
				readAt = min(g.now, n.t+1+r.Int64N(day))
			}
			w.int(id).int(int64(n.recipient)).str(noteNames[n.kind]).int(int64(n.actor)).
				id(int64(n.post)).id(int64(n.comment)).id(int64(n.conv)).id(int64(n.msg))
			if n.kind == noteReaction {
				w.str(reactionNames[n.reaction])
			} else {
				w.null()
			}
			w.ts(readAt).ts(n.t)
			w.end()
			if i%4096 == 0 {
				if err := w.failed(); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
