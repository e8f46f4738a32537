package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/syncbuf"
)

func TestServeAndStopOnSignal(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.json")
	os.WriteFile(script, []byte(`{"turns":[{"content":"hi"}]}`), 0o644)
	urlFile := filepath.Join(dir, "url")

	var stdout, stderr syncbuf.Buffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"-script", script, "-url-file", urlFile, "-v"}, &stdout, &stderr) }()

	var url string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(urlFile); err == nil {
			url = strings.TrimSpace(string(b))
			break
		}
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/v1") {
		t.Fatalf("url %q; stderr %s", url, stderr.String())
	}
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(b, []byte(`"content":"hi"`)) {
		t.Errorf("body %s", b)
	}

	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
	if _, err := os.Stat(urlFile); !os.IsNotExist(err) {
		t.Errorf("url file left behind: %v", err)
	}
	if !strings.Contains(stderr.String(), "turn 1/1") || strings.TrimSpace(stdout.String()) != url {
		t.Errorf("stdout %q stderr %q", stdout.String(), stderr.String())
	}
}

func TestUsageErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage: fakellm") {
		t.Errorf("no args: %d %q", code, errb.String())
	}
	errb.Reset()
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"turns":[{"fault":"nope"}]}`), 0o644)
	if code := run([]string{"-script", bad}, &out, &errb); code != 1 || !strings.Contains(errb.String(), `unknown fault "nope"`) {
		t.Errorf("bad script: %d %q", code, errb.String())
	}
}
