// Command hello serves the benchmark's HTTP ceilings: a bare Echo server
// that answers GET /hello with a small JSON document, nothing else (no
// middleware, no database), and, given -db, GET /read: the same answer
// after one prepared primary-key read of pgbench_accounts through lib/pq,
// the least an endpoint that makes one PostgreSQL round trip a request can
// cost. `make bench` drives both with the same load generators, connections
// and machine as the API, and reports every API result as a ratio to the
// first, and the single post to the second too.
package main

import (
	"database/sql"
	"flag"
	"log"
	"math/rand/v2"
	"net/http"

	"github.com/labstack/echo/v4"
	_ "github.com/lib/pq"
)

type greeting struct {
	Message string `json:"message"`
	ID      int64  `json:"id"`
	Balance *int64 `json:"balance,omitempty"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:18081", "listen address")
	dsn := flag.String("db", "", "PostgreSQL URL of a pgbench database: serve GET /read too")
	conns := flag.Int("db-conns", 16, "connection pool size (the API server's default DB_MAX_CONNS)")
	flag.Parse()
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.GET("/hello", func(c echo.Context) error {
		return c.JSON(http.StatusOK, greeting{Message: "hello, world", ID: 1})
	})
	if *dsn != "" {
		read, err := oneRead(*dsn, *conns)
		if err != nil {
			log.Fatal(err)
		}
		e.GET("/read", read)
	}
	log.Fatal(e.Start(*addr))
}

// oneRead returns the handler of GET /read: one account read by a random
// primary key with a statement prepared once (as pgbench -S -M prepared
// reads it, and as the API's hot reads are prepared), its balance in the
// answer.
func oneRead(dsn string, conns int) (echo.HandlerFunc, error) {
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	var accounts int64
	if err := db.QueryRow(`SELECT max(aid) FROM pgbench_accounts`).Scan(&accounts); err != nil {
		return nil, err
	}
	stmt, err := db.Prepare(`SELECT abalance FROM pgbench_accounts WHERE aid = $1`)
	if err != nil {
		return nil, err
	}
	return func(c echo.Context) error {
		id := rand.Int64N(accounts) + 1
		var balance int64
		if err := stmt.QueryRowContext(c.Request().Context(), id).Scan(&balance); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, greeting{Message: "hello, world", ID: id, Balance: &balance})
	}, nil
}
