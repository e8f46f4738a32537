package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/odek-run/odek/internal/errclass"
)

// ErrSetup is matched (errors.Is) by every error Load and RequireAPIKey
// return: the configuration cannot be used and the command exits 3.
var ErrSetup = errors.New("setup error")

// ErrNoAPIKey classifies the error of RequireAPIKey.
var ErrNoAPIKey = errors.New("no API key")

// ErrUnenforceableBudget classifies the error of RequireEnforceableBudget.
var ErrUnenforceableBudget = errors.New("budget cannot be enforced")

// ErrFileTooLarge classifies a config file larger than MaxFileBytes.
var ErrFileTooLarge = errors.New("config file too large")

// SetupError is an unusable configuration. Msg is the whole message; Err,
// when set, is the cause or a classifying sentinel for errors.Is.
type SetupError struct {
	Msg string
	Err error
}

func (e *SetupError) Error() string { return e.Msg }

// Unwrap returns the cause or classifying sentinel.
func (e *SetupError) Unwrap() error { return e.Err }

// Is reports that every SetupError is an ErrSetup.
func (e *SetupError) Is(target error) bool { return target == ErrSetup }

// ErrorClass returns "setup_error" (exit 3).
func (e *SetupError) ErrorClass() string { return errclass.SetupError }

func setupErrorf(format string, args ...any) error {
	return &SetupError{Msg: fmt.Sprintf(format, args...)}
}

// ParseError is a config file that is not valid JSON or has a value of the
// wrong type. Line and Column (1-based, column in characters) locate the
// offending byte; Err is the *json.SyntaxError or *json.UnmarshalTypeError.
type ParseError struct {
	File         string
	Line, Column int
	Err          error
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, describeJSONError(e.Err))
}

// Unwrap returns the underlying encoding/json error.
func (e *ParseError) Unwrap() error { return e.Err }

// Is reports that a ParseError is an ErrSetup.
func (e *ParseError) Is(target error) bool { return target == ErrSetup }

// ErrorClass returns "setup_error" (exit 3).
func (e *ParseError) ErrorClass() string { return errclass.SetupError }

// describeJSONError words a decode error for an operator, who knows JSON
// and key paths but not odek's Go types.
func describeJSONError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		got := te.Value
		if te.Field == "" {
			return fmt.Sprintf("the file must hold a JSON object, got %s", got)
		}
		if n, ok := strings.CutPrefix(got, "number "); ok && isFloat(te.Type) {
			// a number a float64 cannot hold (1e400)
			return fmt.Sprintf("%q must be a finite number, got %s", te.Field, n)
		}
		return fmt.Sprintf("%q must be %s, got %s", te.Field, jsonKind(te.Type), got)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "invalid JSON: " + se.Error()
	}
	return err.Error()
}

func isFloat(t reflect.Type) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && (t.Kind() == reflect.Float64 || t.Kind() == reflect.Float32)
}

// jsonKind names the JSON shape a Go type decodes from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a different type"
	}
	if t == durationType {
		return "seconds or a duration such as " + DurationExample
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.String {
			return "an array of strings"
		}
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return strings.ToLower(t.Kind().String())
}
