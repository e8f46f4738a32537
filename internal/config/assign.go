package config

import (
	"reflect"
	"time"
)

// assign stores v, in its Kind's representation, in the Config field dst.
// Seconds go into a time.Duration or, for the budgets, an int64 of seconds.
func assign(dst, v any) {
	switch p := dst.(type) {
	case *string:
		*p = v.(string)
	case *bool:
		*p = v.(bool)
	case *int:
		*p = int(v.(int64))
	case *int64:
		if d, ok := v.(time.Duration); ok {
			*p = int64(d / time.Second)
		} else {
			*p = v.(int64)
		}
	case *float64:
		*p = v.(float64)
	case *time.Duration:
		*p = v.(time.Duration)
	case *[]string:
		*p = v.([]string)
	default: // an Object
		reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(v))
	}
}

// assignNumber stores the clamp bound n in a numeric field.
func assignNumber(s *Setting, dst any, n float64) {
	switch s.Kind {
	case Seconds:
		assign(dst, time.Duration(n)*time.Second)
	case Float:
		assign(dst, n)
	default:
		assign(dst, int64(n))
	}
}
