package risk

import "context"

// Class is how much a tool call can do beyond reading the workspace, in
// severity order: when a command has several parts, the highest class of any
// part is the command's class.
type Class uint8

// The classes of docs/TOOLS.md, least severe first.
const (
	Safe          Class = iota // reads and inspection
	LocalWrite                 // writes inside the working directory
	NetworkEgress              // reaches the network
	Install                    // installs packages into the project (fetches and runs code)
	SystemWrite                // writes outside the working directory, privilege, system packages
	CodeExecution              // runs code the classifier cannot see (interpreters, eval, scripts)
	Unknown                    // a program or tool the classifier does not know
	Destructive                // destroys data wholesale (rm -rf /, mkfs, shred)
	Blocked                    // never runs: fork bombs, raw writes to block devices
)

var classNames = [...]string{
	Safe: "safe", LocalWrite: "local_write", NetworkEgress: "network_egress", Install: "install",
	SystemWrite: "system_write", CodeExecution: "code_execution", Unknown: "unknown",
	Destructive: "destructive", Blocked: "blocked",
}

// Classes lists every class, least severe first.
func Classes() []Class {
	out := make([]Class, len(classNames))
	for i := range out {
		out[i] = Class(i)
	}
	return out
}

// String is the class's name as config and events spell it.
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "unknown"
}

// ParseClass is the inverse of String.
func ParseClass(s string) (Class, bool) {
	for i, n := range classNames {
		if n == s {
			return Class(i), true
		}
	}
	return Unknown, false
}

// Set is a set of classes: every class some part of a call has.
type Set uint16

// Of is the set holding cs.
func Of(cs ...Class) Set {
	var s Set
	for _, c := range cs {
		s |= 1 << c
	}
	return s
}

// Has reports whether c is in s.
func (s Set) Has(c Class) bool { return s&(1<<c) != 0 }

// Max is the most severe class in s; Safe for the empty set.
func (s Set) Max() Class {
	m := Safe
	for c := Class(0); int(c) < len(classNames); c++ {
		if s.Has(c) {
			m = c
		}
	}
	return m
}

// List returns the classes in s, least severe first.
func (s Set) List() []Class {
	var out []Class
	for c := Class(0); int(c) < len(classNames); c++ {
		if s.Has(c) {
			out = append(out, c)
		}
	}
	return out
}

// Assessment is what the classifier found out about one call.
type Assessment struct {
	Class   Class  // the most severe class of any part
	Set     Set    // every class of every part (Class is Set.Max())
	Reason  string // why Class, for the operator: "curl reaches the network"
	What    string // the operation on one line, as denials name it: shell command "curl …"
	Inspect bool   // the call only reads (dangerous.non_interactive "read_only" lets it through)
}

// Merge adds b's classes to a, keeping the reason of the more severe one.
func (a Assessment) Merge(b Assessment) Assessment {
	if b.Class > a.Class || a.Reason == "" {
		a.Reason = b.Reason
	}
	a.Set |= b.Set
	a.Class = a.Set.Max()
	a.Inspect = a.Inspect && b.Inspect
	return a
}

type approvedKey struct{}

// WithApproved records on ctx the assessment a policy let through, so a tool
// can re-check at the last moment that the call still is what was approved
// (a symlink swapped in between would raise its class).
func WithApproved(ctx context.Context, a Assessment) context.Context {
	return context.WithValue(ctx, approvedKey{}, a)
}

// Approved returns the assessment WithApproved recorded.
func Approved(ctx context.Context) (Assessment, bool) {
	a, ok := ctx.Value(approvedKey{}).(Assessment)
	return a, ok
}
