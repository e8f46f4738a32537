package main

import "github.com/odek-run/odek/internal/untrusted"

// termText makes untrusted text (server output, error bodies, model text)
// safe for a terminal, keeping its lines: see untrusted.Terminal.
func termText(s string) string { return untrusted.Terminal(s) }

// termLine is termText for text shown on one line (tool names, one-line
// descriptions, errors inside a progress line).
func termLine(s string) string { return untrusted.OneLine(untrusted.Terminal(s), 0) }
