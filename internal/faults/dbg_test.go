package faults_test

import (
	"testing"
	"time"
)

func TestDbgRO(t *testing.T) {
	r := newRig(t, nil, nil)
	if _, err := r.db.Exec(`ALTER DATABASE social SET default_transaction_read_only = on`); err != nil {
		t.Fatal(err)
	}
	res, err := r.db.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, appName)
	n, _ := res.RowsAffected()
	t.Log("terminated", n, err)
	time.Sleep(500 * time.Millisecond)
	l := r.load()
	time.Sleep(time.Second)
	l.stop()
	var rows []struct {
		Pid   int    `db:"pid"`
		Start string `db:"backend_start"`
		App   string `db:"application_name"`
	}
	r.db.Select(&rows, `SELECT pid, backend_start::text, application_name FROM pg_stat_activity`)
	t.Log(rows)
	fresh := r.c.open("social")
	var s string
	fresh.Get(&s, "SHOW default_transaction_read_only")
	t.Log("fresh:", s)
	l.check()
}
