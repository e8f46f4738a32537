package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/odek-run/odek/internal/subagent/wire"
	"github.com/odek-run/odek/internal/untrusted"
)

var createOpts = metav1.CreateOptions{FieldManager: "odek-kube"}

// finish passes the child's result on, once its artifacts are in the
// parent's root and its version is checked, and returns the pod's exit
// code (-1, a pod killed before its container ended, is a timeout's 2).
func (h *helper) finish(r *relay, code int) int {
	if code < 0 {
		code = 2
	}
	if r.result == nil {
		return code
	}
	res := wire.ResultLine(r.result)
	if want := h.parentVersion(); res.OdekVersion != want {
		h.writeResult(&wire.Result{Status: wire.StatusError, Error: fmt.Sprintf(
			"%v: the child's result is refused: the pod runs odek %q, the parent is odek %q (subagent.kubernetes.image must hold the parent's version); the child said: %s",
			ErrVersion, untrusted.OneLine(res.OdekVersion, 64), want, untrusted.OneLine(res.Status+" "+res.Error, 300))})
		return exitError
	}
	h.bringArtifacts(r, res)
	h.writeResult(res)
	return code
}

// bringArtifacts extracts the frame into the parent's artifact root and
// points the refs there. A refused frame leaves the refs pointing into the
// pod, so that the parent drops each one, and says why in the summary.
func (h *helper) bringArtifacts(r *relay, res *wire.Result) {
	if len(res.Artifacts) == 0 {
		return
	}
	err := r.frameErr
	if err == nil && r.frame.Archive() == nil {
		err = fmt.Errorf("no whole artifact frame followed the result")
	}
	if err == nil {
		var names []string
		if names, err = wire.ExtractArtifacts(r.frame.Archive(), h.task.ArtifactRoot); err == nil {
			res.Artifacts = wire.RebaseRefs(res.Artifacts, artifactDir, h.task.ArtifactRoot, names)
			return
		}
	}
	note := "[artifact] the artifacts the pod sent were refused: " + untrusted.OneLine(err.Error(), 300)
	res.Summary = strings.TrimSpace(res.Summary + "\n" + note)
}

func (h *helper) parentVersion() string {
	if v, ok := h.o.LookupEnv(wire.EnvParentVersion); ok && v != "" {
		return v
	}
	return h.o.Version
}

// writeResult prints a result as the framed result line.
func (h *helper) writeResult(res *wire.Result) {
	id := ""
	if h.task != nil {
		id = h.task.TaskID
	}
	if res.OdekVersion == "" {
		res.OdekVersion = h.parentVersion()
	}
	b, err := json.Marshal(wire.Line{Type: wire.LineResult, TaskID: id, Result: res})
	if err != nil {
		return
	}
	_, _ = h.o.Stdout.Write(append(b, '\n'))
}

// cleanup deletes the Job with foreground propagation (its pod, ConfigMap
// and Secret go first) and waits, at most CleanupTimeout, until it is
// gone. It runs on its own context: the run's may have ended.
func (h *helper) cleanup() {
	if h.gone {
		return
	}
	h.gone = true
	timeout := h.o.CleanupTimeout
	if timeout <= 0 {
		timeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	jobs := h.client.BatchV1().Jobs(h.ns)
	fg := metav1.DeletePropagationForeground
	err := jobs.Delete(ctx, h.name, metav1.DeleteOptions{PropagationPolicy: &fg})
	if apierrors.IsNotFound(err) {
		return
	}
	if err != nil {
		h.stderr("deleting Job %s/%s: %v", h.ns, h.name, err)
		return
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := jobs.Get(ctx, h.name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
			return
		}
		select {
		case <-ctx.Done():
			h.stderr("Job %s/%s still there %s after its deletion (the cluster removes it: ttlSecondsAfterFinished)", h.ns, h.name, timeout)
			return
		case <-tick.C:
		}
	}
}
