package cursor

import (
	"regexp"
	"strconv"
	"testing"
)

// TestListQueryNeverCuts checks that the LIMIT of every size class holds the
// whole list.
func TestListQueryNeverCuts(t *testing.T) {
	q := NewListQuery("$1", func(list string) string { return list })
	limit := regexp.MustCompile(`LIMIT (\d+)`)
	for n := 0; n <= 3*maxListClass; n++ {
		m := limit.FindStringSubmatch(q.For(n))
		if m == nil {
			if n <= maxListClass {
				t.Fatalf("list of %d: no LIMIT", n)
			}
			continue
		}
		if l, _ := strconv.Atoi(m[1]); l < n {
			t.Fatalf("list of %d: LIMIT %d", n, l)
		}
	}
}
