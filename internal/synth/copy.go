package synth

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// copyDataer is what lib/pq's COPY FROM STDIN statement offers beyond
// driver.Stmt: raw rows in COPY text format, without a driver.Value per
// field.
type copyDataer interface {
	CopyData(ctx context.Context, line string) (driver.Result, error)
}

// rowWriter formats rows in COPY text format and sends them in ~64 KB
// messages.
type rowWriter struct {
	ctx   context.Context
	cd    copyDataer
	buf   []byte
	first bool // no field written yet in the current row
	rows  int64
	err   error
}

const flushAt = 60 << 10

func (w *rowWriter) sep() {
	if !w.first {
		w.buf = append(w.buf, '\t')
	}
	w.first = false
}

func (w *rowWriter) int(v int64) *rowWriter {
	w.sep()
	w.buf = strconv.AppendInt(w.buf, v, 10)
	return w
}

// id writes v, or NULL when v is 0.
func (w *rowWriter) id(v int64) *rowWriter {
	if v == 0 {
		return w.null()
	}
	return w.int(v)
}

func (w *rowWriter) null() *rowWriter {
	w.sep()
	w.buf = append(w.buf, '\\', 'N')
	return w
}

func (w *rowWriter) bool(v bool) *rowWriter {
	w.sep()
	if v {
		w.buf = append(w.buf, 't')
	} else {
		w.buf = append(w.buf, 'f')
	}
	return w
}

// str writes s escaped for COPY text format.
func (w *rowWriter) str(s string) *rowWriter {
	w.sep()
	w.buf = appendEscaped(w.buf, s)
	return w
}

// strOrNull writes s, or NULL when it is empty.
func (w *rowWriter) strOrNull(s string) *rowWriter {
	if s == "" {
		return w.null()
	}
	return w.str(s)
}

// bytea writes b as a bytea hex literal.
func (w *rowWriter) bytea(b []byte) *rowWriter {
	w.sep()
	const hex = "0123456789abcdef"
	w.buf = append(w.buf, '\\', '\\', 'x')
	for _, c := range b {
		w.buf = append(w.buf, hex[c>>4], hex[c&15])
	}
	return w
}

// ts writes a timestamptz given in Unix microseconds, truncated to whole
// seconds as the API shows times and as every list's sort time is stored
// (migrations 000027, 000028: a column of whole seconds would round); 0 is
// NULL. Truncation keeps the order of the times the generator drew.
func (w *rowWriter) ts(us int64) *rowWriter {
	if us == 0 {
		return w.null()
	}
	w.sep()
	w.buf = time.UnixMicro(us).UTC().AppendFormat(w.buf, "2006-01-02 15:04:05")
	w.buf = append(w.buf, '+', '0', '0')
	return w
}

// textArray writes a text[] of plain words (hashtags: letters, digits, _).
func (w *rowWriter) textArray(ss []string) *rowWriter {
	w.sep()
	w.buf = append(w.buf, '{')
	for i, s := range ss {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = append(w.buf, '"')
		w.buf = appendEscaped(w.buf, s)
		w.buf = append(w.buf, '"')
	}
	w.buf = append(w.buf, '}')
	return w
}

// end finishes the row, flushing when the buffer is full.
func (w *rowWriter) end() {
	w.buf = append(w.buf, '\n')
	w.first = true
	w.rows++
	if len(w.buf) >= flushAt {
		w.flush()
	}
}

func (w *rowWriter) flush() {
	if len(w.buf) == 0 || w.err != nil {
		w.buf = w.buf[:0]
		return
	}
	// CopyData adds the newline of the last row itself.
	_, w.err = w.cd.CopyData(w.ctx, string(w.buf[:len(w.buf)-1]))
	w.buf = w.buf[:0]
}

func appendEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b = append(b, '\\', '\\')
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, c)
		}
	}
	return b
}

// copyIn streams the rows fill writes into table's columns with one
// COPY ... FROM STDIN (FREEZE) on conn, which must be inside the
// transaction that truncated table. It returns the number of rows.
func copyIn(ctx context.Context, conn *sql.Conn, table string, cols []string, fill func(w *rowWriter) error) (int64, error) {
	q := fmt.Sprintf("COPY %s (%s) FROM STDIN WITH (FREEZE)", table, strings.Join(cols, ", "))
	var rows int64
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("driver connection %T is not a driver.Conn", dc)
		}
		st, err := c.Prepare(q)
		if err != nil {
			return fmt.Errorf("copy %s: %w", table, err)
		}
		cd, ok := st.(copyDataer)
		if !ok {
			st.Close()
			return fmt.Errorf("copy %s: the driver's statement %T has no CopyData", table, st)
		}
		w := &rowWriter{ctx: ctx, cd: cd, buf: make([]byte, 0, flushAt+8<<10), first: true}
		ferr := fill(w)
		if ferr == nil {
			w.flush()
			ferr = w.err
		}
		//nolint:staticcheck // Exec(nil) ends the COPY and reports its errors (lib/pq's protocol).
		_, xerr := st.Exec(nil)
		st.Close()
		if ferr != nil {
			return fmt.Errorf("copy %s: %w", table, ferr)
		}
		if xerr != nil {
			return fmt.Errorf("copy %s: %w", table, xerr)
		}
		rows = w.rows
		return nil
	})
	return rows, err
}

// failed reports a COPY error or a cancelled context, for fill loops to stop early.
func (w *rowWriter) failed() error {
	if w.err != nil {
		return w.err
	}
	return w.ctx.Err()
}
