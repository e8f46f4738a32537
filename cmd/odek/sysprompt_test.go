package main

import (
	"os"
	"strconv"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdLLMSystem writes the system messages of request N, each followed by a
// newline (as --print-system prints), to a file of the script's work dir;
// with "all" it checks first that every request starts with the same
// system message, byte for byte, and writes that one:
//
//	llm-system 1 sys.txt
//	llm-system all sys.txt
func cmdLLMSystem(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: llm-system N|all file")
	}
	reqs := server(ts).Requests()
	if len(reqs) == 0 {
		ts.Fatalf("the fake LLM received no request")
	}
	pick := reqs
	if args[0] != "all" {
		n, err := strconv.Atoi(args[0])
		ts.Check(err)
		if n < 1 || n > len(reqs) {
			ts.Fatalf("request %d does not exist (%d received)", n, len(reqs))
		}
		pick = reqs[n-1 : n]
	}
	first := leadingSystem(pick[0])
	for i, r := range pick[1:] {
		if got := leadingSystem(r); got != first {
			ts.Fatalf("request %d's system messages differ from the first request's:\n%q\nwant\n%q", i+2, got, first)
		}
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(first), 0o644))
}

// leadingSystem is the text of a request's leading system messages, each
// ended by a newline; "" when it starts with another role.
func leadingSystem(r fakellm.RecordedRequest) string {
	var out string
	for _, m := range r.Messages {
		if m.Role != "system" {
			break
		}
		out += m.Content + "\n"
	}
	return out
}
