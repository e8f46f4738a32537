package approval

import (
	"slices"
	"testing"
)

// Entries sorts by server, kind, tool and key, grants without a record
// last, whatever order the map hands them out in (TestEntriesOrder sees
// only the orders its runs happen to get): every order of the same grants
// sorts to the one list.
func TestCompareEntriesEveryOrder(t *testing.T) {
	want := []Entry{
		{Key: "k5", Record: &Record{Server: "a", Kind: "spawn"}},
		{Key: "k4", Record: &Record{Server: "a", Kind: "tool", Tool: "x"}},
		{Key: "k1", Record: &Record{Server: "a", Kind: "tool", Tool: "y"}},
		{Key: "k2", Record: &Record{Server: "a", Kind: "tool", Tool: "y"}},
		{Key: "k0", Record: &Record{Server: "b", Kind: "spawn"}},
		{Key: "k3"},
		{Key: "k6"},
	}
	var permute func(done, rest []Entry)
	permute = func(done, rest []Entry) {
		if len(rest) == 0 {
			got := slices.Clone(done)
			slices.SortFunc(got, compareEntries)
			if !slices.Equal(keys(got), keys(want)) {
				t.Fatalf("from %v sorted to %v, want %v", keys(done), keys(got), keys(want))
			}
			return
		}
		for i := range rest {
			next := slices.Concat(rest[:i], rest[i+1:])
			permute(append(slices.Clone(done), rest[i]), next)
		}
	}
	permute(nil, want)
}

// A comparison is the reverse of its mirror: a grant with a record sorts
// before one without, and the one without after it.
func TestCompareEntriesAntisymmetric(t *testing.T) {
	rec := Entry{Key: "z", Record: &Record{Server: "a", Kind: "spawn"}}
	none := Entry{Key: "a"}
	tests := []struct {
		a, b Entry
		want int
	}{
		{rec, none, -1},
		{none, rec, 1},
		{none, Entry{Key: "b"}, -1},
		{rec, rec, 0},
	}
	for _, tt := range tests {
		if got := compareEntries(tt.a, tt.b); got != tt.want {
			t.Errorf("compareEntries(%s, %s) = %d, want %d", tt.a.Key, tt.b.Key, got, tt.want)
		}
	}
}

func keys(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Key
	}
	return out
}
