package config

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestProjectKubernetesRunner: a project file can neither choose the
// kubernetes runner nor point it at a cluster, an image or a service
// account: every key is ignored with a warning.
func TestProjectKubernetesRunner(t *testing.T) {
	project := `{"subagent": {"runner": "kubernetes", "kubernetes": {"kubeconfig": "/tmp/evil", "image": "evil:1",
	  "service_account": "admin", "labels": {"a": "b"}}}}`
	c, w := fixture{project: project}.mustLoad(t)
	var want []string
	for _, k := range []string{"subagent.runner", "subagent.kubernetes.kubeconfig", "subagent.kubernetes.image",
		"subagent.kubernetes.service_account", "subagent.kubernetes.labels"} {
		want = append(want, `DIR/odek.json: ignoring "`+k+`": a project file cannot set it (only HOME/config.json can)`)
	}
	if diff := cmp.Diff(want, w, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if c.Subagent.Runner != "local" || c.Subagent.Kubernetes.Image != "" || c.Subagent.Kubernetes.Kubeconfig != "" ||
		c.Subagent.Kubernetes.ServiceAccount != "" || len(c.Subagent.Kubernetes.Labels) != 0 {
		t.Errorf("a project kubernetes key took effect: %q %+v", c.Subagent.Runner, c.Subagent.Kubernetes)
	}
}

// TestGlobalKubernetesRunner: the operator's file sets every key, with the
// defaults where it is silent.
func TestGlobalKubernetesRunner(t *testing.T) {
	global := `{"subagent": {"runner": "kubernetes", "kubernetes": {"namespace": "agents", "image": "odek:1",
	  "image_pull_policy": "IfNotPresent", "resources": {"requests": {"cpu": "500m"}, "limits": {"memory": "1Gi"}},
	  "labels": {"team": "platform"}}}}`
	c, w := fixture{global: global}.mustLoad(t)
	if len(w) != 0 {
		t.Errorf("warnings: %q", w)
	}
	want := Kubernetes{Namespace: "agents", Image: "odek:1", ImagePullPolicy: "IfNotPresent",
		Resources:        KubeResources{Requests: map[string]string{"cpu": "500m"}, Limits: map[string]string{"memory": "1Gi"}},
		TTLAfterFinished: 600, ScheduleTimeout: 120 * time.Second, Labels: map[string]string{"team": "platform"}}
	if c.Subagent.Runner != "kubernetes" {
		t.Errorf("runner = %q", c.Subagent.Runner)
	}
	if diff := cmp.Diff(want, c.Subagent.Kubernetes); diff != "" {
		t.Errorf("kubernetes (-want +got):\n%s", diff)
	}
}
