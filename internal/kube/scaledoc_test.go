package kube

import (
	"context"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/odek-run/odek/internal/subagent/wire"
)

// scaleManifests are docs/SCALE.md's YAML blocks: the Kubernetes objects
// (each document of a block that has an apiVersion) and the other files.
func scaleManifests(t *testing.T) (objects []string, others []string) {
	t.Helper()
	doc, err := os.ReadFile("../../docs/SCALE.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		if !strings.HasPrefix(m[1], "apiVersion:") {
			others = append(others, m[1])
			continue
		}
		objects = append(objects, strings.Split(m[1], "\n---\n")...)
	}
	return objects, others
}

// decodeStrict decodes one manifest with the Kubernetes types: an unknown
// or misspelt field, or a value of the wrong type, fails.
func decodeStrict(doc string) (runtime.Object, error) {
	codecs := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict)
	obj, _, err := codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
	return obj, err
}

// TestScaleManifests: every manifest docs/SCALE.md shows is a valid
// object of its kind, and the CI files are YAML with the keys their
// engines read.
func TestScaleManifests(t *testing.T) {
	t.Parallel()
	objects, others := scaleManifests(t)
	kinds := map[string]int{}
	for _, doc := range objects {
		obj, err := decodeStrict(doc)
		if err != nil {
			t.Errorf("%v in\n%s", err, doc)
			continue
		}
		kinds[obj.GetObjectKind().GroupVersionKind().Kind]++
		if j, ok := obj.(*batchv1.Job); ok && (j.Spec.CompletionMode == nil || *j.Spec.CompletionMode != batchv1.IndexedCompletion) {
			t.Errorf("the Job of the Indexed Job example is not Indexed")
		}
	}
	for _, k := range []string{"ConfigMap", "Job", "ServiceAccount", "Role", "RoleBinding"} {
		if kinds[k] == 0 {
			t.Errorf("no %s among the manifests (%v)", k, kinds)
		}
	}
	if len(others) != 2 {
		t.Fatalf("%d CI files, want the GitHub Actions and the GitLab CI examples", len(others))
	}
	for _, doc := range others {
		var v map[string]any
		if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
			t.Errorf("%v in\n%s", err, doc)
		}
		if !strings.Contains(doc, "--events-jsonl events.jsonl") || !strings.Contains(doc, "--output json") || !strings.Contains(doc, "report.json") {
			t.Errorf("a CI example keeps no report or events:\n%s", doc)
		}
	}
}

// TestScaleRoleCoversTheHelper: the Role docs/SCALE.md gives allows every
// request odek-kube makes, on a child that runs and on one whose Job made
// no pod (it then reads the Job's events).
func TestScaleRoleCoversTheHelper(t *testing.T) {
	t.Parallel()
	objects, _ := scaleManifests(t)
	var role *rbacv1.Role
	for _, doc := range objects {
		if obj, err := decodeStrict(doc); err == nil {
			if r, ok := obj.(*rbacv1.Role); ok {
				role = r
			}
		}
	}
	if role == nil {
		t.Fatal("no Role in docs/SCALE.md")
	}
	allowed := func(group, resource, verb string) bool {
		for _, r := range role.Rules {
			if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) {
				return true
			}
		}
		return false
	}
	ran := newCluster(t)
	ran.log = func() io.Reader { return strings.NewReader(ok(t, "v1.2.3")) }
	ran.run(context.Background(), run{key: "sk"})
	none := newCluster(t)
	none.noPod = true
	none.run(context.Background(), run{settings: wire.KubeSettings{ScheduleTimeoutSeconds: 1}})
	seen := map[string]bool{"get pods/log ": true} // Options.Logs stands for it here
	for _, c := range []*cluster{ran, none} {
		for _, a := range c.client.Actions() {
			if a.GetSubresource() == "status" {
				continue // the test's stand-in for the node
			}
			res := a.GetResource().Resource
			if a.GetSubresource() != "" {
				res += "/" + a.GetSubresource()
			}
			seen[a.GetVerb()+" "+res+" "+a.GetResource().Group] = true
		}
	}
	for k := range seen {
		f := strings.SplitN(k, " ", 3)
		if !allowed(f[2], f[1], f[0]) {
			t.Errorf("the Role does not allow %s %s (group %q)", f[0], f[1], f[2])
		}
	}
	if !seen["list events "] {
		t.Errorf("a Job without a pod did not read its events: %v", seen)
	}
}
