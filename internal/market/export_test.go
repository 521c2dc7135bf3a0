package market

import (
	"context"

	"github.com/socialnet/socialapi/internal/cursor"
)

// ListQuery exposes the SQL of List to the EXPLAIN test.
func (s *Store) ListQuery(ctx context.Context, f Filter, after *cursor.Position, limit int) (string, []any, error) {
	return s.listQuery(ctx, f, after, limit)
}
