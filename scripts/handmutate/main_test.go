package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestListMatchesCode fails as soon as a code change leaves an entry of the
// checked-in list behind (its snippet gone or no longer unique), so the list
// cannot silently rot until the next make mutate.
func TestListMatchesCode(t *testing.T) {
	t.Chdir("../..")
	ms, err := parse(defaultList)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 100 {
		t.Fatalf("parsed only %d mutations from %s", len(ms), defaultList)
	}
	for _, p := range checkAll(ms) {
		t.Error("stale entry:", p)
	}
}

func TestCheckAllNamesEveryStaleEntry(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "a.go")
	if err := os.WriteFile(src, []byte("package a\n\nvar x = 1 + 1\nvar y = 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	list := filepath.Join(dir, "list.txt")
	body := strings.Join([]string{
		"file: " + src, "why: fine", "old: var y = 2", "new: var y = 3", "",
		"file: " + src, "why: gone", "old: var z = 3", "new: var z = 4", "",
		"file: " + src, "why: twice", "old: 1", "new: 2", "",
		"file: " + src, "why: no change", "old: var y", "new: var y", "",
		"file: " + filepath.Join(dir, "missing.go"), "why: no file", "old: x", "new: y", "",
	}, "\n")
	if err := os.WriteFile(list, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	ms, err := parse(list)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 5 {
		t.Fatalf("parsed %d mutations, want 5", len(ms))
	}
	problems := checkAll(ms)
	if len(problems) != 4 {
		t.Fatalf("got %d problems, want 4 (all but the first): %q", len(problems), problems)
	}
	for i, want := range []string{"occurs 0 times", "occurs 2 times", "the same", "no such file"} {
		if !strings.Contains(problems[i], want) {
			t.Errorf("problem %d = %q, want it to say %q", i, problems[i], want)
		}
	}
	for i, line := range []string{":6 ", ":11 ", ":16 ", ":21 "} {
		if !strings.Contains(problems[i], line) {
			t.Errorf("problem %d = %q does not name its list line %s", i, problems[i], line)
		}
	}
}

func TestParseRefusesIncompleteEntries(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"no new":      "file: a.go\nwhy: w\nold: x\n",
		"no why":      "file: a.go\nold: x\nnew: y\n",
		"twice":       "file: a.go\nfile: b.go\nwhy: w\nold: x\nnew: y\n",
		"unknown key": "file: a.go\nwhy: w\nold: x\nnew: y\nrn: T\n",
		"bad literal": "file: a.go\nwhy: w\noldlit: \"x\nnew: y\n",
		"no colon":    "file a.go\n",
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := parse(p); err == nil {
			t.Errorf("%s: parse accepted %q", name, body)
		}
	}
}
