package risk

import (
	"context"
	"testing"
)

func TestClassNamesRoundTrip(t *testing.T) {
	want := []string{"safe", "local_write", "network_egress", "install", "system_write", "code_execution", "unknown", "destructive", "blocked"}
	cs := Classes()
	if len(cs) != len(want) {
		t.Fatalf("%d classes, want %d", len(cs), len(want))
	}
	for i, c := range cs {
		if c.String() != want[i] {
			t.Errorf("class %d = %q, want %q", i, c, want[i])
		}
		if p, ok := ParseClass(want[i]); !ok || p != c {
			t.Errorf("ParseClass(%q) = %v, %v", want[i], p, ok)
		}
	}
	if _, ok := ParseClass("Safe"); ok {
		t.Error("ParseClass accepted a misspelt class")
	}
	if Class(200).String() != "unknown" {
		t.Error("an out-of-range class must read as unknown")
	}
}

func TestSetAndMerge(t *testing.T) {
	s := Of(LocalWrite, NetworkEgress)
	if !s.Has(LocalWrite) || s.Has(Safe) || s.Max() != NetworkEgress || len(s.List()) != 2 {
		t.Fatalf("set %b: has/max/list wrong", s)
	}
	if Set(0).Max() != Safe {
		t.Error("empty set's max must be safe")
	}
	a := Assessment{Class: Safe, Set: Of(Safe), Reason: "ls reads", Inspect: true}
	b := Assessment{Class: Destructive, Set: Of(Destructive), Reason: "rm -rf /"}
	m := a.Merge(b)
	if m.Class != Destructive || m.Reason != "rm -rf /" || m.Inspect || !m.Set.Has(Safe) {
		t.Fatalf("merge = %+v", m)
	}
	if m2 := b.Merge(a); m2.Reason != "rm -rf /" {
		t.Fatalf("merging a lower class replaced the reason: %+v", m2)
	}
}

func TestApprovedContext(t *testing.T) {
	if _, ok := Approved(context.Background()); ok {
		t.Fatal("a bare context has no approval")
	}
	ctx := WithApproved(context.Background(), Assessment{Class: LocalWrite})
	if a, ok := Approved(ctx); !ok || a.Class != LocalWrite {
		t.Fatalf("Approved = %+v, %v", a, ok)
	}
}
