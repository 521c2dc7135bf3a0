// Package apperr defines the error kinds the core returns to the HTTP edge.
//
// A store or rule returns an *Error carrying a stable code from the API's
// closed list (see openapi.yaml, Problem.code), a client-safe detail and,
// optionally, the internal cause. The edge maps the code to a status once;
// nothing below it writes HTTP.
package apperr

import (
	"errors"
	"fmt"
)

// Code is one value of the API's closed error-code enum.
type Code string

// The closed set of problem codes (docs/design.md, Errors). Keep in sync with Problem.code in openapi.yaml.
const (
	Unauthenticated      Code = "unauthenticated"
	InvalidJSON          Code = "invalid_json"
	InvalidParameter     Code = "invalid_parameter"
	InvalidCursor        Code = "invalid_cursor"
	ValidationFailed     Code = "validation_failed"
	InvalidToken         Code = "invalid_token"
	TokenExpired         Code = "token_expired"
	TokenRevoked         Code = "token_revoked"
	InsufficientScope    Code = "insufficient_scope"
	Forbidden            Code = "forbidden"
	NotFound             Code = "not_found"
	MethodNotAllowed     Code = "method_not_allowed"
	UnsupportedMedia     Code = "unsupported_media_type"
	PayloadTooLarge      Code = "payload_too_large"
	CannotFollowSelf     Code = "cannot_follow_self"
	RateLimited          Code = "rate_limited"
	IdempotencyKeyInUse  Code = "idempotency_key_in_use"
	IdempotencyKeyReused Code = "idempotency_key_reused"
	Unavailable          Code = "unavailable"
	Internal             Code = "internal_error"
	NotImplemented       Code = "not_implemented"
	AccountSuspended     Code = "account_suspended"
	CannotBlockSelf      Code = "cannot_block_self"
	CannotMuteSelf       Code = "cannot_mute_self"
	MemberBlocked        Code = "member_blocked"
	CannotMessage        Code = "cannot_message"
)

// FieldCode is one value of the API's closed enum of field-level reasons
// (openapi.yaml, ProblemFieldCode). Its one field is unexported, so the
// values below are the only ones a package can send: a reason the spec does
// not list cannot be written.
type FieldCode struct{ name string }

// String returns the code as sent in Problem.errors[].code.
func (c FieldCode) String() string { return c.name }

// The field codes. Every one is listed in FieldCodes, which a test holds
// equal to the enum of ProblemFieldCode in openapi.yaml.
var (
	FieldRequired          = FieldCode{"required"}
	FieldUnknownField      = FieldCode{"unknown_field"}
	FieldDuplicate         = FieldCode{"duplicate"}
	FieldWrongType         = FieldCode{"wrong_type"}
	FieldNotAllowed        = FieldCode{"not_allowed"}
	FieldTooShort          = FieldCode{"too_short"}
	FieldTooLong           = FieldCode{"too_long"}
	FieldTooMany           = FieldCode{"too_many"}
	FieldOutOfRange        = FieldCode{"out_of_range"}
	FieldBadFormat         = FieldCode{"bad_format"}
	FieldInvalidText       = FieldCode{"invalid_text"}
	FieldUnknown           = FieldCode{"unknown"}
	FieldTaken             = FieldCode{"taken"}
	FieldAlreadyVoted      = FieldCode{"already_voted"}
	FieldSingleChoice      = FieldCode{"single_choice"}
	FieldPollClosed        = FieldCode{"poll_closed"}
	FieldInvalid           = FieldCode{"invalid"}
	FieldInvalidCursor     = FieldCode{"invalid_cursor"}
	FieldUnknownParameter  = FieldCode{"unknown_parameter"}
	FieldRepeatedParameter = FieldCode{"repeated_parameter"}
)

// FieldCodes is the closed list of field codes, in the order of the spec's
// enum.
var FieldCodes = []FieldCode{
	FieldRequired, FieldUnknownField, FieldDuplicate, FieldWrongType, FieldNotAllowed,
	FieldTooShort, FieldTooLong, FieldTooMany, FieldOutOfRange, FieldBadFormat,
	FieldInvalidText, FieldUnknown, FieldTaken, FieldAlreadyVoted, FieldSingleChoice,
	FieldPollClosed, FieldInvalid, FieldInvalidCursor, FieldUnknownParameter, FieldRepeatedParameter,
}

// FieldError points at one offending input: a JSON pointer into the body or a
// parameter name, never both. A zero Code is sent as `invalid`.
type FieldError struct {
	Pointer   string
	Parameter string
	Code      FieldCode
	Detail    string
}

// Error is a classified failure with a client-safe message.
type Error struct {
	Code   Code
	Detail string         // safe to show to the client
	Fields []FieldError   // field-level problems, if any
	Meta   map[string]any // extension members of the problem body (e.g. rate-limit details)
	Err    error          // internal cause, logged, never shown
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Detail, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Detail)
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an error of the given code with a client-safe detail.
func New(code Code, detail string) *Error { return &Error{Code: code, Detail: detail} }

// Wrap returns an error of the given code that keeps err as its internal cause.
func Wrap(code Code, detail string, err error) *Error {
	return &Error{Code: code, Detail: detail, Err: err}
}

// TryLater returns the one answer for a request the service cannot
// serve right now (the database unreachable or too slow, no turn in time):
// unavailable, keeping err (nil: none) as its internal cause.
func TryLater(err error) *Error {
	return Wrap(Unavailable, "The service is temporarily unavailable. Retry later.", err)
}

// Field returns a validation_failed error about one body field.
func Field(pointer string, code FieldCode, detail string) *Error {
	return &Error{
		Code:   ValidationFailed,
		Detail: detail,
		Fields: []FieldError{{Pointer: pointer, Code: code, Detail: detail}},
	}
}

// CodeOf reports the code of err, or Internal when err is not classified.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// Is reports whether err is classified with code.
func Is(err error, code Code) bool { return err != nil && CodeOf(err) == code }
