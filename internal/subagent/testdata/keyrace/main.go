//go:build linux

// Command keyrace races the sub-agent key handover (see keyrace_linux_test.go):
//
//	keyrace parent -n N -j J [-plain]   hands N children (J at a time) a key each
//	keyrace subagent …                  a child: takes its key as odek does
//	keyrace thief [-attacks …]          tries to steal keys until stdin closes
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: keyrace parent|child|thief …")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "parent":
		os.Exit(parent(os.Args[2:]))
	case "thief":
		os.Exit(thief(os.Args[2:]))
	default:
		os.Exit(child())
	}
}
