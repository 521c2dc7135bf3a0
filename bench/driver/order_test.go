package main

import (
	"slices"
	"testing"
)

// TestRunOrder: -only runs the scenarios it names in its order (once
// each, diagnostic ones included); without it every scenario but the
// diagnostic ones runs in the list's order.
func TestRunOrder(t *testing.T) {
	list := []scenario{{Name: "a"}, {Name: "b"}, {Name: "d", diagnostic: true}, {Name: "c"}}
	for only, want := range map[string][]int{
		"":            {0, 1, 3},
		",":           {0, 1, 3},
		"c,a":         {3, 0},
		"b,b,x,d":     {1, 2},
		"a,c,b":       {0, 3, 1},
		"mix_streams": nil,
	} {
		if got := runOrder(list, only); !slices.Equal(got, want) {
			t.Errorf("runOrder(%q) = %v, want %v", only, got, want)
		}
	}
}
