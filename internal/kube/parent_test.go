package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/odek-run/odek/internal/fakellm"
	"github.com/odek-run/odek/internal/kube/kubetest"
	"github.com/odek-run/odek/internal/testbin"
)

// The parent-level scenarios: a real `odek run` whose operator config
// selects the kubernetes runner, its children real odek processes in pods
// of the shared plane, started by the real odek-kube, parent and children
// answered by one fakellm. Each scenario has its own namespace, so that
// "nothing left behind" is a list of the whole namespace.

// e2e is one scenario's parent: its ODEK_HOME, its workspace and its
// namespace on the plane.
type e2e struct {
	t          *testing.T
	p          *kubetest.Plane
	ns         string
	home, work string
	odek       string
	image      string
}

var e2eSeq atomic.Int64

// newE2E builds odek and odek-kube, makes a namespace and maps an image to
// a pod entrypoint: pre (shell, may be "") runs in the pod before the real
// odek, then odek runs with the pod's arguments.
func newE2E(t *testing.T, pre string, config map[string]any) *e2e {
	p := kubetest.Shared(t)
	odek := testbin.Build(t, "odek", "./cmd/odek")
	helper := testbin.Build(t, "odek-kube", "./cmd/odek-kube")
	n := e2eSeq.Add(1)
	e := &e2e{t: t, p: p, ns: fmt.Sprintf("e2e-%d-%d", os.Getpid(), n), odek: odek}
	e.image = "odek:" + e.ns
	dir := t.TempDir()
	e.home, e.work = filepath.Join(dir, "home"), filepath.Join(dir, "work")
	for _, d := range []string{e.home, e.work, filepath.Join(dir, "img")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The node runs the image's executable for a command naming its base
	// name: the entrypoint is called odek too.
	entry := filepath.Join(dir, "img", "odek")
	script := "#!/bin/sh\n" + pre + "\nexec " + odek + " \"$@\"\n"
	if err := os.WriteFile(entry, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := p.MapImage(e.image, entry); err != nil {
		t.Fatal(err)
	}
	e.makeNamespace()
	sub := map[string]any{"runner": "kubernetes", "kubernetes": map[string]any{
		"helper": helper, "kubeconfig": p.Kubeconfig, "namespace": e.ns, "image": e.image,
		"ttl_seconds_after_finished": 60, "schedule_timeout_seconds": 30}}
	cfg := map[string]any{"subagent": sub}
	for k, v := range config {
		if k == "subagent" {
			for sk, sv := range v.(map[string]any) {
				sub[sk] = sv
			}
			continue
		}
		cfg[k] = v
	}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(e.home, "config.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

// makeNamespace creates the scenario's namespace and waits for its default
// service account (a pod needs it); it deletes the namespace at the end.
func (e *e2e) makeNamespace() {
	ctx := context.Background()
	c := e.p.Client
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns}}, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = c.CoreV1().Namespaces().Delete(context.Background(), e.ns, metav1.DeleteOptions{}) })
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	w, err := c.CoreV1().ServiceAccounts(e.ns).Watch(wctx, metav1.ListOptions{FieldSelector: "metadata.name=default"})
	if err != nil {
		e.t.Fatal(err)
	}
	defer w.Stop()
	if _, err := c.CoreV1().ServiceAccounts(e.ns).Get(ctx, "default", metav1.GetOptions{}); err == nil {
		return
	}
	for range w.ResultChan() {
		return
	}
	e.t.Fatalf("namespace %s: no default service account within 60s", e.ns)
}

// run runs `odek run --output json goal` against a fakellm playing turns
// and returns the report, stdout and stderr.
func (e *e2e) run(srv *fakellm.Server, goal string, args ...string) (map[string]any, string) {
	e.t.Helper()
	argv := append([]string{"run", "--quiet", "--output", "json"}, args...)
	cmd := exec.Command(e.odek, append(argv, goal)...)
	cmd.Dir = e.work
	cmd.Env = append(os.Environ(), "ODEK_HOME="+e.home, "HOME="+filepath.Dir(e.home), "ODEK_BASE_URL="+srv.URL(),
		"ODEK_API_KEY=sk-e2e-parent", "NO_COLOR=1", "ODEK_SUBAGENT_DEPTH=")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	_ = cmd.Run()
	e.t.Logf("odek run: %s\nstderr:\n%s", cmd.ProcessState, stderr.String())
	var report map[string]any
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		e.t.Fatalf("no report on stdout: %v\n%s", err, out.String())
	}
	return report, stderr.String()
}

// leftovers lists the Jobs, pods, ConfigMaps (but the root CA's) and
// Secrets of the namespace.
func (e *e2e) leftovers() []string {
	ctx := context.Background()
	c := e.p.Client
	var left []string
	jobs, err := c.BatchV1().Jobs(e.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, j := range jobs.Items {
		left = append(left, "job/"+j.Name)
	}
	pods, err := c.CoreV1().Pods(e.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, p := range pods.Items {
		left = append(left, "pod/"+p.Name)
	}
	cms, err := c.CoreV1().ConfigMaps(e.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, m := range cms.Items {
		if m.Name != "kube-root-ca.crt" {
			left = append(left, "configmap/"+m.Name)
		}
	}
	secrets, err := c.CoreV1().Secrets(e.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, s := range secrets.Items {
		left = append(left, "secret/"+s.Name)
	}
	return left
}

// checkClean fails the test when anything of the children is left.
func (e *e2e) checkClean() {
	e.t.Helper()
	if left := e.leftovers(); len(left) != 0 {
		e.t.Errorf("left in namespace %s: %v", e.ns, left)
	}
}

// startLLM starts a fakellm playing script (JSON), closed at the end.
func startLLM(t *testing.T, script string) *fakellm.Server {
	s, err := fakellm.ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := fakellm.Start(s, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// lastMatching is the last request whose last message contains s.
func lastMatching(t *testing.T, srv *fakellm.Server, s string) string {
	t.Helper()
	reqs := srv.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		msgs := reqs[i].Messages
		if len(msgs) > 0 && strings.Contains(msgs[len(msgs)-1].Content, s) {
			return msgs[len(msgs)-1].Content
		}
	}
	t.Fatalf("no request to the model ends with %q", s)
	return ""
}
