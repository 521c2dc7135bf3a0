package httpapi

import (
	"testing"

	"github.com/socialnet/socialapi/gen"
)

// Every guarded write names an operation of the spec, and one that writes.
func TestGuardedWritesAreOperations(t *testing.T) {
	spec, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]string{}
	for _, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			methods[op.OperationID] = method
		}
	}
	for id := range guardedWrites {
		switch methods[id] {
		case "":
			t.Errorf("guardedWrites names %q, which is no operation", id)
		case "GET":
			t.Errorf("guardedWrites names %q, a GET (every GET is recallable)", id)
		}
	}
}
