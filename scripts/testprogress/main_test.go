package main

import (
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: boom\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestA","Elapsed":0.1}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"noise\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestB"}`,
		`{"Action":"pass","Package":"c","Test":"TestScripts/replay","Elapsed":2.25}`,
		`{"Action":"pass","Package":"c","Test":"TestScripts/replay/sub","Elapsed":1}`,
		`{"Action":"pass","Package":"c","Test":"TestScriptsRace/events_drop","Elapsed":3}`,
		`{"Action":"output","Package":"p","Output":"FAIL\tp\t0.2s\n"}`,
		`{"Action":"fail","Package":"p","Elapsed":0.2}`,
		`not json`,
	}, "\n")
	var out strings.Builder
	failed, err := run(strings.NewReader(in), &out)
	if err != nil || !failed {
		t.Fatalf("failed = %v, err = %v", failed, err)
	}
	want := "=== RUN   TestA\n    a_test.go:9: boom\n    pass script replay (2.2s)\n    pass script events_drop (race) (3.0s)\nFAIL\tp\t0.2s\nnot json\n"
	if out.String() != want {
		t.Errorf("output =\n%s\nwant\n%s", out.String(), want)
	}
	failed, _ = run(strings.NewReader(`{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}`+"\n"+`{"Action":"pass","Package":"p"}`), &out)
	if failed {
		t.Error("a passing run reported a failure")
	}
	failed, _ = run(strings.NewReader(`{"Action":"build-output","ImportPath":"p","Output":"x.go:1: bad\n"}`+"\n"+`{"Action":"build-fail","ImportPath":"p"}`), &out)
	if !failed {
		t.Error("a build failure passed")
	}
}
