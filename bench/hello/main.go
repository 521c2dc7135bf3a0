// Command hello is the benchmark's HTTP ceiling: a bare Echo server that
// answers GET /hello with a small JSON document, nothing else (no
// middleware, no database). `make bench` drives it with the same load
// generator, connections and machine as the API, and reports every API
// result as a ratio to it.
package main

import (
	"flag"
	"log"
	"net/http"

	"github.com/labstack/echo/v4"
)

type greeting struct {
	Message string `json:"message"`
	ID      int    `json:"id"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:18081", "listen address")
	flag.Parse()
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.GET("/hello", func(c echo.Context) error {
		return c.JSON(http.StatusOK, greeting{Message: "hello, world", ID: 1})
	})
	log.Fatal(e.Start(*addr))
}
