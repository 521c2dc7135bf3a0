package pg

import (
	"encoding/json"
	"fmt"
)

// JSON scans a json or jsonb column into a T; NULL leaves V as it is.
type JSON[T any] struct{ V T }

// Scan implements sql.Scanner.
func (j *JSON[T]) Scan(src any) error {
	switch b := src.(type) {
	case []byte:
		return json.Unmarshal(b, &j.V)
	case string:
		return json.Unmarshal([]byte(b), &j.V)
	case nil:
		return nil
	}
	return fmt.Errorf("pg: cannot scan %T into JSON", src)
}
