//go:build linux

package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/odek-run/odek/internal/proc"
	"github.com/odek-run/odek/internal/subagent"
)

// parent starts -n children of -child through subagent.LocalRunner, -j at a
// time, each with its own key, and prints one line per outcome kind:
//
//	children N ok N
//	refused N <reason>   (the parent refused the handover)
//	failed N <reason>    (the child did not get its key)
func parent(args []string) int {
	fs := flag.NewFlagSet("parent", flag.ExitOnError)
	n := fs.Int("n", 100, "children")
	j := fs.Int("j", 4, "children at a time")
	path := fs.String("child", "", `child executable ("" = this one, as odek starts its children)`)
	plain := fs.Bool("plain", false, "start children from /proc/self/exe, not an execute-only copy (as where the kernel refuses one)")
	_ = fs.Parse(args)
	if *path == "" && !*plain {
		if _, err := proc.ExecOnlySelf(); err != nil {
			fmt.Println("exec-only", err)
		} else {
			fmt.Println("exec-only yes")
		}
	}
	r := &subagent.LocalRunner{Path: *path}
	if *plain && *path == "" {
		r.Path = "/proc/self/exe"
	}
	var mu sync.Mutex
	ok, refused, failed := 0, map[string]int{}, map[string]int{}
	sem := make(chan struct{}, *j)
	var wg sync.WaitGroup
	for range *n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			key := "sk-race-" + rand.Text()
			got, err := run(r, key)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				refused[reason(err.Error())]++
			case got == "ok":
				ok++
			default:
				failed[reason(got)]++
			}
		}()
	}
	wg.Wait()
	fmt.Printf("children %d ok %d\n", *n, ok)
	report("refused", refused)
	report("failed", failed)
	return 0
}

// run hands one child key and returns "ok" when the child reports holding
// it, else what the child said.
func run(r *subagent.LocalRunner, key string) (string, error) {
	p, err := r.Start(context.Background(), subagent.Spec{
		TaskFile: "unused", Key: key, Dir: "/",
		Env: []string{"ODEK_API_KEY_FD=3", "KEYRACE_CHILD=1", "PATH=/usr/bin:/bin"},
	})
	if err != nil {
		return "", err
	}
	if os.Getenv("KEYRACE_DEBUG") != "" {
		fmt.Fprintln(os.Stderr, "KEY", p.PID(), key)
	}
	line, _ := bufio.NewReader(p.Stdout()).ReadString('\n')
	_ = p.Wait()
	sum := sha256.Sum256([]byte(key))
	if strings.TrimSpace(line) == "ok "+hex.EncodeToString(sum[:]) {
		return "ok", nil
	}
	return strings.TrimSpace(line) + " " + p.StderrTail(), nil
}

// reason is an error message with its numbers (pids, uids) taken out, to
// count alike ones together.
func reason(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r >= '0' && r <= '9' }), "#")
}

func report(kind string, m map[string]int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("%s %d %s\n", kind, m[k], k)
	}
}
