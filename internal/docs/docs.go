// Package docs serves the API reference at /docs: Redoc's standalone bundle,
// vendored from npm by tools/vendor-redoc.sh and embedded in the binary,
// rendering the embedded openapi.yaml. The page loads nothing from another
// origin, and its Content-Security-Policy forbids it to.
package docs

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
)

var (
	//go:embed redoc.standalone.js
	redocJS []byte
	//go:embed redoc.version
	redocVersion string
)

// Path is where the reference page is served.
const Path = "/docs"

// csp allows only this origin's scripts; Redoc needs inline styles
// (styled-components), data: images and fonts, and a blob: worker for search.
const csp = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// initJS starts Redoc on the contract embedded in the page as JSON data.
const initJS = `Redoc.init(
  JSON.parse(document.getElementById("openapi").textContent),
  { expandResponses: "200,201", pathInMiddlePanel: true, hideHostname: false },
  document.getElementById("redoc"));
`

var page = template.Must(template.New("docs").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} {{.Version}} reference</title>
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<noscript>This reference needs JavaScript. The contract itself is at <a href="{{.SpecURL}}">{{.SpecURL}}</a>.</noscript>
<div id="redoc"></div>
<script id="openapi" type="application/json">{{.Spec}}</script>
<script src="{{.BundleURL}}"></script>
<script src="{{.InitURL}}"></script>
</body>
</html>
`))

// Handler serves the reference page and its scripts.
type Handler struct {
	page      []byte
	bundleURL string
}

// New renders the page for spec, whose servers are replaced by apiURL (the
// deployment's absolute API base), and links specURL for readers without
// JavaScript.
func New(spec *openapi3.T, apiURL, specURL string) (*Handler, error) {
	spec.Servers = openapi3.Servers{{URL: apiURL, Description: "This deployment."}}
	js, err := json.Marshal(spec) // escapes <, > and &: safe inside <script>
	if err != nil {
		return nil, fmt.Errorf("docs: encode spec: %w", err)
	}
	h := &Handler{bundleURL: Path + "/redoc-" + strings.TrimSpace(redocVersion) + ".standalone.js"}
	var b strings.Builder
	err = page.Execute(&b, map[string]any{
		"Title": spec.Info.Title, "Version": spec.Info.Version, "SpecURL": specURL,
		"Spec": template.JS(js), "BundleURL": h.bundleURL, "InitURL": Path + "/init.js",
	})
	if err != nil {
		return nil, fmt.Errorf("docs: render page: %w", err)
	}
	h.page = []byte(b.String())
	return h, nil
}

// Router is where Register adds its routes: an *echo.Echo, or a router
// that also answers HEAD for each GET.
type Router interface {
	GET(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route
}

// Register adds the page and its scripts to e.
func (h *Handler) Register(e Router) {
	e.GET(Path, func(c echo.Context) error {
		hd := c.Response().Header()
		hd.Set("Content-Security-Policy", csp)
		hd.Set("Cache-Control", "no-cache")
		return c.Blob(http.StatusOK, echo.MIMETextHTMLCharsetUTF8, h.page)
	})
	e.GET(h.bundleURL, func(c echo.Context) error {
		// The URL names the version, so the bundle never changes under it.
		c.Response().Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		return c.Blob(http.StatusOK, echo.MIMEApplicationJavaScriptCharsetUTF8, redocJS)
	})
	e.GET(Path+"/init.js", func(c echo.Context) error {
		c.Response().Header().Set("Cache-Control", "no-cache")
		return c.Blob(http.StatusOK, echo.MIMEApplicationJavaScriptCharsetUTF8, []byte(initJS))
	})
}
