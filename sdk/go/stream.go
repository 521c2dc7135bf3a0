package socialapi

// Hand-written (not generated): reading the body of GET /stream, a
// Server-Sent Events stream (text/event-stream). OpenAPI 3.0 describes the
// data of each event (the Stream…Event types, by the event names of
// StreamEventType) but not the framing, so the framing is read here, as
// the WHATWG HTML standard's "event stream interpretation" says.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// maxStreamLine bounds one line of the stream: an event's data is one JSON
// line, itself bounded by the contract's schemas.
const maxStreamLine = 1 << 20

// StreamEvent is one event of the stream: its id ("" for an event without
// one, such as refetch), its name and its data (one JSON object).
type StreamEvent struct {
	ID    string
	Event string
	Data  json.RawMessage
}

// Decode decodes the event's data into v (e.g. a *StreamNotificationEvent
// for a "notification" event), refusing fields the contract does not name.
func (e StreamEvent) Decode(v any) error {
	d := json.NewDecoder(bytes.NewReader(e.Data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%s event %s: %w", e.Event, e.ID, err)
	}
	return nil
}

// StreamReader reads the events of a stream body, one at a time.
type StreamReader struct {
	sc    *bufio.Scanner
	Retry string // the last retry: hint, in milliseconds
}

// NewStreamReader reads the events of r, the body of GET /stream.
func NewStreamReader(r io.Reader) *StreamReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxStreamLine)
	return &StreamReader{sc: sc}
}

// Next returns the next event; comment lines (heartbeats) and retry hints
// are consumed on the way. It returns io.EOF when the stream ends.
func (s *StreamReader) Next() (StreamEvent, error) {
	var ev StreamEvent
	var data []string
	seen := false
	for s.sc.Scan() {
		line := s.sc.Text()
		if line == "" {
			if seen && ev.Event == "" {
				ev.Event = "message" // the standard's default name
			}
			if len(data) > 0 {
				ev.Data = json.RawMessage(strings.Join(data, "\n"))
				return ev, nil
			}
			ev, data, seen = StreamEvent{}, nil, false
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue // a comment: the heartbeat
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.ID, seen = value, true
		case "event":
			ev.Event, seen = value, true
		case "data":
			data, seen = append(data, value), true
		case "retry":
			s.Retry = value
		}
	}
	if err := s.sc.Err(); err != nil {
		return StreamEvent{}, err
	}
	return StreamEvent{}, io.EOF
}
