// Package meta serves the API index (GET /api/v1/): a description of the
// network, its limits and enums, and the list of every endpoint, all derived
// from the embedded openapi.yaml so they cannot drift from the contract.
package meta

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/socialnet/socialapi/gen"
)

// Handler answers GetIndex with an index built once at start-up.
type Handler struct{ index gen.IndexResponse }

// Config is what the index says about the deployment.
type Config struct {
	PublicURL string
	BasePath  string // "/api/v1"
	BodyLimit int64
	// Rate-limit quotas, requests per minute.
	ReadPerMinute  int
	WritePerMinute int
	Window         time.Duration
	// SpecSHA256 is the lowercase hex SHA-256 of the served openapi.yaml.
	SpecSHA256 string
}

// NewHandler builds the index from the spec.
func NewHandler(spec *openapi3.T, cfg Config) (*Handler, error) {
	idx, err := build(spec, cfg)
	if err != nil {
		return nil, err
	}
	return &Handler{index: gen.IndexResponse{Data: idx}}, nil
}

// GetIndex implements gen.StrictServerInterface.
func (h *Handler) GetIndex(ctx context.Context, _ gen.GetIndexRequestObject) (gen.GetIndexResponseObject, error) {
	return gen.GetIndex200JSONResponse{Body: h.index}, nil
}

func build(spec *openapi3.T, cfg Config) (gen.APIIndex, error) {
	var idx gen.APIIndex
	var err error
	get := func(schema, prop string) int {
		if err != nil {
			return 0
		}
		var n int
		n, err = maxLength(spec, schema, prop)
		return n
	}
	idx.Limits = gen.IndexLimits{
		PerPageDefault:       paramInt(spec, "PerPage", func(s *openapi3.Schema) *float64 { return defaultOf(s) }),
		PerPageMax:           paramInt(spec, "PerPage", func(s *openapi3.Schema) *float64 { return s.Max }),
		PostBodyMaxLength:    get("NewPost", "body"),
		CommentBodyMaxLength: get("NewComment", "body"),
		MessageBodyMaxLength: get("NewMessage", "body"),
		LinkMaxLength:        get("NewPost", "link"),
		QueryMaxLength:       paramInt(spec, "SearchQuery", func(s *openapi3.Schema) *float64 { return u64p(s.MaxLength) }),
		RequestBodyMaxBytes:  int(cfg.BodyLimit),
	}
	if err != nil {
		return idx, err
	}
	enums := map[string]*[]string{
		"PostType": &idx.Enums.PostTypes, "Visibility": &idx.Enums.Visibilities,
		"ReactionType": &idx.Enums.ReactionTypes, "NotificationType": &idx.Enums.NotificationTypes,
		"MediaKind": &idx.Enums.MediaKinds, "ListingCondition": &idx.Enums.ListingConditions,
		"ListingStatus": &idx.Enums.ListingStatuses, "JobWorkplace": &idx.Enums.JobWorkplaces,
		"EmploymentType": &idx.Enums.JobEmploymentTypes,
	}
	for name, dst := range enums {
		ref := spec.Components.Schemas[name]
		if ref == nil || ref.Value == nil || len(ref.Value.Enum) == 0 {
			return idx, fmt.Errorf("index: schema %s has no enum", name)
		}
		*dst = make([]string, 0, len(ref.Value.Enum))
		for _, v := range ref.Value.Enum {
			*dst = append(*dst, fmt.Sprint(v))
		}
	}

	idx.Name = spec.Info.Title
	idx.Description = firstParagraph(spec.Info.Description)
	idx.Version = spec.Info.Version
	idx.DocumentationURL = cfg.PublicURL + "/docs"
	idx.OpenapiURL = cfg.PublicURL + cfg.BasePath + "/openapi.yaml"
	idx.OpenapiSha256 = cfg.SpecSHA256

	for _, p := range spec.Paths.InMatchingOrder() {
		for method, op := range spec.Paths.Value(p).Operations() {
			policy, _ := op.Extensions["x-rate-limit-policy"].(string)
			if policy != "read" && policy != "write" {
				return idx, fmt.Errorf("index: %s %s has no x-rate-limit-policy", method, p)
			}
			idx.Endpoints = append(idx.Endpoints, gen.Endpoint{
				Method:          gen.EndpointMethod(method),
				Path:            cfg.BasePath + p,
				OperationID:     op.OperationID,
				Summary:         op.Summary,
				Scope:           gen.Scope(ScopeOf(op)),
				RateLimitPolicy: gen.RateLimitPolicyName(policy),
			})
		}
	}
	sort.Slice(idx.Endpoints, func(i, j int) bool {
		a, b := idx.Endpoints[i], idx.Endpoints[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Method < b.Method
	})
	idx.RateLimitPolicies = []gen.RateLimitPolicy{
		{Name: "read", Limit: cfg.ReadPerMinute, WindowSeconds: int64(cfg.Window.Seconds()), Methods: []string{"GET", "HEAD"}},
		{Name: "write", Limit: cfg.WritePerMinute, WindowSeconds: int64(cfg.Window.Seconds()), Methods: []string{"POST", "DELETE"}},
	}
	return idx, nil
}

// RequiredScope is the operation extension naming the scope an operation
// needs: an http bearer scheme's security requirement lists no scopes
// (OpenAPI 3.0.3), so the spec states it here.
const RequiredScope = "x-required-scope"

// ScopeOf is the scope op needs, from its x-required-scope: "read", or
// "write" for anything else (a missing or unknown value fails closed).
func ScopeOf(op *openapi3.Operation) string {
	if s, ok := op.Extensions[RequiredScope].(string); ok && s == "read" {
		return "read"
	}
	return "write"
}

func maxLength(spec *openapi3.T, schema, prop string) (int, error) {
	s := spec.Components.Schemas[schema]
	if s == nil || s.Value == nil || s.Value.Properties[prop] == nil || s.Value.Properties[prop].Value.MaxLength == nil {
		return 0, fmt.Errorf("index: %s.%s has no maxLength", schema, prop)
	}
	return int(*s.Value.Properties[prop].Value.MaxLength), nil
}

func paramInt(spec *openapi3.T, name string, pick func(*openapi3.Schema) *float64) int {
	p := spec.Components.Parameters[name]
	if p == nil || p.Value == nil || p.Value.Schema == nil || p.Value.Schema.Value == nil {
		return 0
	}
	if v := pick(p.Value.Schema.Value); v != nil {
		return int(*v)
	}
	return 0
}

func defaultOf(s *openapi3.Schema) *float64 {
	switch v := s.Default.(type) {
	case float64:
		return &v
	case int:
		f := float64(v)
		return &f
	}
	return nil
}

func u64p(v *uint64) *float64 {
	if v == nil {
		return nil
	}
	f := float64(*v)
	return &f
}

func firstParagraph(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	return strings.Join(strings.Fields(s), " ")
}
