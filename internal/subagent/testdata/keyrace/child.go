//go:build linux

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"

	"github.com/odek-run/odek/internal/childkey"
)

// child reports what childkey's init took. A keyrace parent's child
// (KEYRACE_CHILD=1) prints one line: "ok <sha256 of the key>" or "err
// <reason>" (never the key itself: a thief may have opened this process's
// stdout pipe through /proc while it was dumpable). Any other prints the
// result line of a sub-agent whose summary says what a test of the
// handover checks:
//
//	key=<first 16 hex digits of the key's sha256>|none leak=no|env|argv
//	fdenv=<ODEK_API_KEY_FD as exec'd> inherited=<ODEK_API_KEY_FD now>
//	fd3=closed|<what it is> depth=<ODEK_SUBAGENT_DEPTH>
func child() int {
	fd3 := "closed" // looked at before anything here opens a file
	if link, err := os.Readlink("/proc/self/fd/3"); err == nil {
		fd3 = link
	}
	key, handed, err := childkey.Key()
	if os.Getenv("KEYRACE_CHILD") == "1" {
		switch {
		case !handed:
			fmt.Println("err not handed a key")
		case err != nil:
			fmt.Println("err", err)
		default:
			fmt.Println("ok", digest(key))
		}
		return 0
	}
	summary := "key=none"
	if err != nil {
		summary = "error=" + err.Error()
	} else if handed {
		summary = "key=" + digest(key)[:16]
	}
	environ, _ := os.ReadFile("/proc/self/environ")
	cmdline, _ := os.ReadFile("/proc/self/cmdline")
	leak := "no"
	switch {
	case key != "" && bytes.Contains(environ, []byte(key)):
		leak = "env"
	case key != "" && bytes.Contains(cmdline, []byte(key)):
		leak = "argv"
	}
	fdenv := ""
	for _, kv := range bytes.Split(environ, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("ODEK_API_KEY_FD=")); ok {
			fdenv = string(v)
		}
	}
	summary += fmt.Sprintf(" leak=%s fdenv=%s inherited=%s fd3=%s depth=%s", leak, fdenv, os.Getenv("ODEK_API_KEY_FD"), fd3, os.Getenv("ODEK_SUBAGENT_DEPTH"))
	line, _ := json.Marshal(map[string]any{"type": "result", "result": map[string]any{"status": "success", "summary": summary}})
	fmt.Println(string(line))
	return 0
}

// digest is the hex SHA-256 of key.
func digest(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}
