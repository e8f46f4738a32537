package session

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseExternalRef(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		in   string
		want ExternalRef
	}{
		{"ci-run=https://ci.example.test/runs/4821", ExternalRef{Kind: "ci-run", URI: "https://ci.example.test/runs/4821", CreatedBy: "cli"}},
		{"kind=ci-run,uri=https://ci/x,created_by=orchestrator", ExternalRef{Kind: "ci-run", URI: "https://ci/x", CreatedBy: "orchestrator"}},
		{"kind=dash,uri=https://d/?a=1,b=2,created_by=me,read_only=true", ExternalRef{Kind: "dash", URI: "https://d/?a=1,b=2", CreatedBy: "me", ReadOnly: &yes}},
		{"kind=s3,created_by=me,uri=s3://b/k,read_only=0", ExternalRef{Kind: "s3", URI: "s3://b/k", CreatedBy: "me", ReadOnly: &no}},
		{"doc=https://x/a=b", ExternalRef{Kind: "doc", URI: "https://x/a=b", CreatedBy: "cli"}},
	} {
		got, err := ParseExternalRef(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestParseExternalRefRejects(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "want kind=..,uri=.."},
		{"no-equals", "want kind=..,uri=.."},
		{"=https://x", "kind is empty"},
		{"ci=", "uri is empty"},
		{"CI=https://x", "kind may only contain"},
		{"ci run=https://x", "kind may only contain"},
		{strings.Repeat("k", 65) + "=u", "kind is 65 characters, over the limit of 64"},
		{"ci=" + strings.Repeat("u", 2049), "uri is 2049 characters, over the limit of 2048"},
		{"ci=https://x/\nInjected", "uri contains a control character"},
		{"ci=https://x/\x7f", "uri contains a control character"},
		{"kind=ci,uri=https://x", "created_by is required"},
		{"kind=ci,uri=https://x,created_by=", "created_by is empty"},
		{"kind=ci,uri=https://x,created_by=" + strings.Repeat("b", 129), "created_by is 129 characters"},
		{"kind=ci,uri=https://x,created_by=me,read_only=perhaps", `read_only must be true or false, got "perhaps"`},
		{"kind=ci,kind=cd,uri=https://x,created_by=me", "kind is given twice"},
		{"kind=ci,uri=\xff,created_by=me", "not valid UTF-8"},
	} {
		_, err := ParseExternalRef(tc.in)
		var re *RefError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want a RefError with %q", tc.in, err, tc.want)
		}
	}
}

func TestMergeRefsDeduplicates(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Hour)
	a := ExternalRef{Kind: "ci", URI: "u", CreatedBy: "cli"}
	have, n := MergeRefs(nil, []ExternalRef{a, a}, t0)
	if n != 1 || len(have) != 1 || !have[0].CreatedAt.Equal(t0) {
		t.Fatalf("first merge: %d %+v", n, have)
	}
	b := a
	b.CreatedBy = "bot" // another creator: another ref
	c := a
	c.ReadOnly = new(bool) // read_only is not part of the key
	have, n = MergeRefs(have, []ExternalRef{c, b}, t1)
	if n != 1 || len(have) != 2 || have[1].CreatedBy != "bot" || !have[0].CreatedAt.Equal(t0) {
		t.Errorf("second merge: %d %+v", n, have)
	}
}
